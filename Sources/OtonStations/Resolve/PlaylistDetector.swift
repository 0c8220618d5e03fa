import Foundation

/// Decides whether a body is a playlist, and which, from what the server said
/// and what the body looks like. The bytes win: servers often send
/// playlists as text/html or text/plain, and real ASF media as video/x-ms-asf.
public enum PlaylistDetector {
    /// By the first bytes (after a BOM and whitespace), then — for plain M3U, which has no
    /// header — by Content-Type or extension, or by every line being an http(s) URL.
    /// nil: not a playlist (audio, an HTML page, anything else).
    public static func format(body: Data, contentType: String?, url: URL) -> PlaylistFormat? {
        let head = PlaylistText.decode(body.prefix(4096)).trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = head.lowercased()
        if lower.hasPrefix("[playlist]") { return .pls }
        if lower.hasPrefix("#extm3u") { return .m3u }
        if lower.hasPrefix("<asx") { return .asx }
        if lower.hasPrefix("<?xml") || lower.hasPrefix("<playlist") || lower.hasPrefix("<!--") {
            if lower.contains("<playlist") && (lower.contains("xspf") || lower.contains("<tracklist")) { return .xspf }
            if lower.contains("<asx") { return .asx }
            return nil
        }
        if lower.hasPrefix("<") { return nil }  // HTML or other markup
        guard !body.contains(0) else { return nil }  // binary: audio
        let hinted = hint(contentType: contentType) ?? hint(extension: url.pathExtension)
        if hinted == .pls, lower.contains("file1=") { return .pls }
        if hinted == .m3u || looksLikeURLList(head) { return .m3u }
        return nil
    }

    /// The format a Content-Type names (parameters and case ignored).
    public static func hint(contentType: String?) -> PlaylistFormat? {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        switch type {
        case "audio/x-scpls", "application/pls+xml", "audio/scpls": return .pls
        case "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/m3u", "audio/x-m3u":
            return .m3u
        case "application/xspf+xml": return .xspf
        case "video/x-ms-asf", "video/x-ms-asx", "audio/x-ms-wax", "video/x-ms-wvx", "audio/x-ms-asx": return .asx
        default: return nil
        }
    }

    /// The format a file extension names.
    public static func hint(extension pathExtension: String) -> PlaylistFormat? {
        switch pathExtension.lowercased() {
        case "pls": .pls
        case "m3u", "m3u8": .m3u
        case "xspf": .xspf
        case "asx", "wax", "wvx": .asx
        default: nil
        }
    }

    /// Extensions of audio files and streams: such a URL is played without looking first.
    package static let audioExtensions: Set<String> = ["mp3", "ogg", "oga", "opus", "aac", "aacp", "m4a", "mp4", "flac", "wav", "wma", "spx", "mpga"]

    /// Plain M3U served under another type: every non-comment line of the head is an http(s) URL.
    private static func looksLikeURLList(_ head: String) -> Bool {
        let lines = PlaylistText.lines(head).filter { !$0.hasPrefix("#") }
        guard !lines.isEmpty else { return false }
        return lines.allSatisfy { line in
            let lower = line.lowercased()
            return (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && !line.contains(" ")
        }
    }
}

/// HLS playlists look like M3U but describe segments or variants, not a stream URL.
public enum HLSDetector {
    /// Whether an M3U body (its first 64 KiB) carries an HLS tag on a line of its own.
    public static func isHLS(_ body: Data) -> Bool {
        PlaylistText.lines(PlaylistText.decode(body.prefix(64 * 1024))).contains { isHLSTag($0.uppercased()) }
    }

    /// `line` upper-cased.
    package static func isHLSTag(_ line: String) -> Bool {
        line.hasPrefix("#EXT-X-TARGETDURATION") || line.hasPrefix("#EXT-X-STREAM-INF") || line.hasPrefix("#EXT-X-MEDIA-SEQUENCE")
            || line.hasPrefix("#EXT-X-PLAYLIST-TYPE")
    }
}

/// A DASH manifest (MPD): XML whose root element is `MPD`, or anything served as
/// application/dash+xml. Like an HLS playlist it is a stream of its own, not a list of streams.
public enum DASHDetector {
    public static func isDASH(_ body: Data, contentType: String?) -> Bool {
        if let type = contentType?.lowercased(), type.hasPrefix("application/dash+xml") { return true }
        return rootElement(of: body.prefix(4096)).map { $0 == "MPD" || $0.hasSuffix(":MPD") } ?? false
    }

    /// The name of the first element in an XML head (after the declaration, comments and doctype).
    package static func rootElement(of head: Data) -> String? {
        let bytes = Array(head)
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")), open + 1 < bytes.count {
            let next = bytes[open + 1]
            let isLetter = (next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z")
            guard isLetter else { index = open + 1; continue }  // <?xml …?>, <!-- … -->, <!DOCTYPE …>
            let name = bytes[(open + 1)...].prefix { ![UInt8(ascii: " "), UInt8(ascii: ">"), UInt8(ascii: "/"), 9, 10, 13].contains($0) }
            return String(decoding: name, as: UTF8.self)
        }
        return nil
    }
}
