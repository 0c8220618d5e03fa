import CGStreamer

/// Reads the tags a listener cares about from a GStreamer tag list.
/// Strings are taken as bytes and decoded by TitleByteDecoder: the bytes are untrusted.
enum TagReader {
    static func read(_ tags: UnsafeMutablePointer<GstTagList>) -> TagSet {
        var set = TagSet(origin: .stream)
        set.title = string(tags, "title")
        set.artist = string(tags, "artist")
        set.station = string(tags, "organization")
        set.genre = string(tags, "genre")
        set.codec = string(tags, "audio-codec")
        set.bitrate = unsigned(tags, "bitrate")
        set.nominalBitrate = unsigned(tags, "nominal-bitrate")
        return set
    }

    private static func string(_ tags: UnsafeMutablePointer<GstTagList>, _ name: String) -> String? {
        var value: UnsafePointer<gchar>?
        guard gst_tag_list_peek_string_index(tags, name, 0, &value) != 0, let value else { return nil }
        let length = min(strlen(value), TitleByteDecoder.maxInputBytes)
        let bytes = UnsafeRawBufferPointer(start: value, count: length)
        return TitleByteDecoder.decode(Array(bytes)).text
    }

    private static func unsigned(_ tags: UnsafeMutablePointer<GstTagList>, _ name: String) -> Int? {
        var value: guint = 0
        guard gst_tag_list_get_uint(tags, name, &value) != 0, value > 0 else { return nil }
        return Int(value)
    }
}
