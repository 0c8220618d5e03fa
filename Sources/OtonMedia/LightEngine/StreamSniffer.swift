import Foundation
import OtonStreamFraming

/// Names the codec of an encoded stream from its Content-Type and first bytes, for the light
/// engine, which has no GStreamer typefinder. The answer is caps text in GStreamer's words, so
/// the stream tap says the same thing whichever engine runs and a recorder cuts it the same way.
///
/// Known: MP3 (and MPEG-1/2 layers I–II), also behind a leading ID3v2 tag, which is skipped;
/// ADTS AAC; Ogg with Vorbis, Opus or FLAC inside; native FLAC. Anything else (MP4, HLS, HTML)
/// is not framed here: the caller falls back to GStreamer or reports what the server sent.
public struct StreamSniffer: Sendable {
    public struct Kind: Equatable, Sendable {
        /// The stream tap's caps, e.g. "audio/mpeg, mpegversion=(int)1, layer=(int)3".
        public var caps: String
        /// The codec as GStreamer's tags name it (`audio-codec`), for the track event.
        public var codec: String
        /// The bitrate the first frame header gives (MPEG audio only), in bit/s.
        public var bitrate: Int?
    }

    public enum Verdict: Equatable, Sendable {
        /// Need more bytes.
        case undecided
        /// Audio begins `skip` bytes into what was pushed so far (a leading ID3v2 tag, junk before the first frame).
        case audio(Kind, skip: Int)
        /// Not something the light engine frames; `reason` says what it is.
        case unsupported(reason: String)
        /// Text, HTML or a playlist where audio was expected.
        case notAudio(contentType: String)
    }

    /// How far to look for the first frame before giving up (an ID3v2 tag is skipped, not counted).
    public static let searchLimit = 64 * 1024
    /// A leading ID3v2 tag larger than this is not audio we will wait for…
    public static let maximumID3Size = 16 * 1024 * 1024
    /// …nor leading tags that add up to more (a chain of tags kept a station "connecting" forever: issue 39, N13).
    public static let maximumSkippedBytes = 16 * 1024 * 1024

    private let contentType: String
    private var held: [UInt8] = []
    /// Bytes of an ID3v2 tag still to skip; how many were skipped in all.
    private var id3Left = 0
    private var skipped = 0

    /// Bytes passed over so far as not audio (a leading ID3v2 tag).
    public var skippedBytes: Int { skipped }

    public init(contentType: String?) {
        self.contentType = (contentType ?? "").lowercased()
    }

    /// Feeds the next piece of the body (ICY metadata already removed). Once it says `.audio`, the
    /// audio is every byte pushed so far past `skip`, plus everything after.
    public mutating func push(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        if let early = verdictFromContentType() { return early }
        var piece = bytes[...]
        if id3Left > 0 {
            let take = min(id3Left, piece.count)
            id3Left -= take
            skipped += take
            piece = piece.dropFirst(take)
            if id3Left > 0 { return .undecided }
        }
        held.append(contentsOf: piece)
        while true {
            if held.count >= 10, held[0] == 0x49, held[1] == 0x44, held[2] == 0x33 {  // "ID3"
                let size = held[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) } + 10 + (held[5] & 0x10 != 0 ? 10 : 0)
                guard size <= Self.maximumID3Size else { return .unsupported(reason: "a leading ID3 tag of \(size) bytes") }
                guard skipped + size <= Self.maximumSkippedBytes else {
                    return .notAudio(contentType: "ID3 tags and no audio in the first \(Self.maximumSkippedBytes / 1_048_576) MiB")
                }
                let take = min(size, held.count)
                held.removeFirst(take)
                skipped += take
                id3Left = size - take
                if id3Left > 0 { return .undecided }
                continue
            }
            break
        }
        if held.count < 4 { return .undecided }
        if held.starts(with: [0x4F, 0x67, 0x67, 0x53]) {  // "OggS"
            guard held.count >= 27, held.count >= 27 + Int(held[26]) else { return .undecided }
            guard let page = OggPage(held, at: 0) else { return .unsupported(reason: "an Ogg stream of a codec oton does not frame") }
            // The identification header is whole on the first page (each codec's fits in one).
            guard held.count >= page.length else { return .undecided }
            guard let codec = OggCodec(identification: held[page.headerLength..<page.length]) else {
                return .unsupported(reason: "an Ogg stream of a codec oton does not frame")
            }
            return audio(codec.caps, codec.name, skip: 0)
        }
        // Native FLAC (audio/flac): the recorder frames it (a "0.0 s" .bin was all it made of it: issue 39 §3).
        if held.starts(with: Array("fLaC".utf8)) { return audio("audio/x-flac", "FLAC", skip: 0) }
        if let text = textualContent() { return .notAudio(contentType: text) }
        // The first MPEG sync (11 bits set) whose header is valid and, when the frame's end is in
        // sight, is followed by another sync.
        var index = 0
        while index + 4 <= held.count {
            if held[index] == 0xFF, held[index + 1] & 0xE0 == 0xE0, let header = FrameHeader(held, at: index) {
                let next = index + header.length
                if next + 2 > held.count && held.count < Self.searchLimit { return .undecided }
                if next + 2 > held.count || (held[next] == 0xFF && held[next + 1] & 0xE0 == 0xE0) {
                    return audio(header.caps, header.codec, skip: index, bitrate: header.bitrate)
                }
            }
            index += 1
        }
        if held.count >= Self.searchLimit { return .unsupported(reason: "no audio frame in the first \(Self.searchLimit / 1024) KiB") }
        return .undecided
    }

    private func audio(_ caps: String, _ codec: String, skip: Int, bitrate: Int? = nil) -> Verdict {
        .audio(Kind(caps: caps, codec: codec, bitrate: bitrate), skip: skipped + skip)
    }

    private func verdictFromContentType() -> Verdict? {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if type.contains("mpegurl") || type.contains("dash+xml") { return .unsupported(reason: "a playlist (\(type))") }
        if type.hasPrefix("text/html") || type.hasPrefix("application/json") { return .notAudio(contentType: type) }
        if type.hasPrefix("audio/mp4") || type.hasPrefix("video/") { return .unsupported(reason: type) }
        return nil
    }

    /// HTML or text where the server did not say so: "<!DOCTYPE", "<html", "#EXTM3U", "[playlist]".
    private func textualContent() -> String? {
        let head = String(decoding: held.prefix(16), as: UTF8.self).lowercased()
        for (prefix, name) in [("<!doctype", "text/html"), ("<html", "text/html"), ("#extm3u", "a playlist"), ("[playlist]", "a playlist"), ("<?xml", "XML")]
        where head.hasPrefix(prefix) { return name }
        return nil
    }
}

/// One MPEG audio or ADTS frame header, as the sniffer names it (the header itself is read by
/// ``MPEGFrameHeader``, which the file sink cuts with).
package struct FrameHeader {
    package var length: Int
    package var caps: String
    package var codec: String
    package var bitrate: Int?

    package init?(_ bytes: [UInt8], at index: Int) {
        guard let header = MPEGFrameHeader(bytes, at: index) else { return nil }
        length = header.length
        if header.isADTS {
            caps = "audio/mpeg, mpegversion=(int)\(header.mpegVersion), stream-format=(string)adts"
            codec = "MPEG-4 AAC"
            bitrate = nil
        } else {
            caps = "audio/mpeg, mpegversion=(int)1, layer=(int)\(header.layer)"
            let mpeg1 = header.codec.hasPrefix("MPEG-1")
            codec = header.layer == 3 ? (mpeg1 ? "MPEG-1 Layer 3 (MP3)" : "MPEG-2 Layer 3 (MP3)") : "MPEG-1 Layer \(header.layer)"
            bitrate = header.bitrate
        }
    }
}
