/// What a renderer must be able to play to take a station over: the MIME types a stream of a given
/// codec (the track event's `codec`, GStreamer's name of it) or an HLS playlist is served as, most
/// common first. A renderer's ConnectionManager Sink list is checked against them before casting.
public struct StreamFormat: Sendable, Equatable {
    /// A short name for messages: "MP3", "AAC", "HLS"…
    public var name: String
    public var mimeTypes: [String]

    public init(name: String, mimeTypes: [String]) {
        self.name = name
        self.mimeTypes = mimeTypes
    }

    /// nil when the codec is not known yet (the stream has not started) or not one oton names.
    public static func of(codec: String?, url: String) -> StreamFormat? {
        if isHLS(url) {
            return StreamFormat(name: "HLS", mimeTypes: ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"])
        }
        guard let codec = codec?.lowercased(), !codec.isEmpty else { return nil }
        if codec.contains("aac") {
            return StreamFormat(name: "AAC", mimeTypes: ["audio/aac", "audio/x-aac", "audio/aacp", "audio/mp4", "audio/x-m4a", "audio/3gpp"])
        }
        if codec.contains("layer 3") || codec.contains("mp3") {
            return StreamFormat(name: "MP3", mimeTypes: ["audio/mpeg", "audio/mp3", "audio/x-mpeg"])
        }
        if codec.contains("opus") { return StreamFormat(name: "Opus", mimeTypes: ["audio/ogg", "audio/opus", "application/ogg"]) }
        if codec.contains("vorbis") { return StreamFormat(name: "Ogg Vorbis", mimeTypes: ["audio/ogg", "application/ogg", "audio/x-ogg", "audio/vorbis"]) }
        if codec.contains("flac") { return StreamFormat(name: "FLAC", mimeTypes: ["audio/flac", "audio/x-flac"]) }
        return nil
    }

    /// An HLS playlist by its path (the host hands HLS to GStreamer by the same sign).
    public static func isHLS(_ url: String) -> Bool {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        return path.lowercased().hasSuffix(".m3u8")
    }

    /// The protocolInfo oton offers for `mime`: HTTP GET on any network, no DLNA profile.
    public static func protocolInfo(_ mime: String) -> String { "http-get:*:\(mime):*" }

    /// The renderer's Sink list (GetProtocolInfo's comma-separated entries), each at most 512 bytes
    /// and at most 512 of them: a renderer's reply is bounded before any of it is compared.
    public static func sinkEntries(_ sink: String) -> [String] {
        sink.split(separator: ",", omittingEmptySubsequences: true).prefix(512)
            .map { String($0.trimmingCharactersInWhitespace().prefix(512)) }
            .filter { !$0.isEmpty }
    }
}

extension Substring {
    func trimmingCharactersInWhitespace() -> Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
