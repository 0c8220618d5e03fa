import CGStreamer
import OtonEvents

/// Reads the tags a listener cares about from a GStreamer tag list.
/// Strings are taken as bytes and decoded by TitleByteDecoder: the bytes are untrusted.
/// GStreamer has already read non-UTF-8 ICY titles as Latin-1; `encoding` (the
/// station's `title_encoding`) decides how the original bytes are recovered.
package enum TagReader {
    package static func read(_ tags: UnsafeMutablePointer<GstTagList>, encoding: TitleEncodingSetting = .auto) -> TagSet {
        var set = TagSet(origin: .stream)
        set.title = string(tags, "title", encoding)
        set.artist = string(tags, "artist", encoding)
        set.station = string(tags, "organization", encoding)
        set.genre = string(tags, "genre", encoding)
        set.codec = string(tags, "audio-codec", .utf8)
        set.bitrate = unsigned(tags, "bitrate")
        set.nominalBitrate = unsigned(tags, "nominal-bitrate")
        return set
    }

    private static func string(_ tags: UnsafeMutablePointer<GstTagList>, _ name: String, _ encoding: TitleEncodingSetting) -> String? {
        var value: UnsafePointer<gchar>?
        guard gst_tag_list_peek_string_index(tags, name, 0, &value) != 0, let value else { return nil }
        let length = min(strlen(value), TitleByteDecoder.maxInputBytes)
        let bytes = UnsafeRawBufferPointer(start: value, count: length)
        guard let text = String(validating: bytes, as: UTF8.self) else { return TitleByteDecoder.decode(Array(bytes)).text }
        return TitleByteDecoder.decode(convertedText: text, setting: encoding).text
    }

    private static func unsigned(_ tags: UnsafeMutablePointer<GstTagList>, _ name: String) -> Int? {
        var value: guint = 0
        guard gst_tag_list_get_uint(tags, name, &value) != 0, value > 0 else { return nil }
        return Int(value)
    }
}
