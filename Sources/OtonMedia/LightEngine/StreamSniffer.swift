import Foundation

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
            if held.count >= 10, held[0] == 0x49, held[1] == 0x44, held[2] == 0x33 { // "ID3"
                let size = held[6 ... 9].reduce(0) { $0 << 7 | Int($1 & 0x7F) } + 10 + (held[5] & 0x10 != 0 ? 10 : 0)
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
        if held.starts(with: [0x4F, 0x67, 0x67, 0x53]) { // "OggS"
            guard held.count >= 28 + 8 else { return .undecided }
            let segments = Int(held[26])
            let body = 27 + segments
            guard held.count >= body + 8 else { return .undecided }
            let packet = held[body...]
            if packet.starts(with: [0x01] + Array("vorbis".utf8)) { return audio("audio/ogg, codec=(string)vorbis", "Vorbis", skip: 0) }
            if packet.starts(with: Array("OpusHead".utf8)) { return audio("audio/ogg, codec=(string)opus", "Opus", skip: 0) }
            if packet.starts(with: [0x7F] + Array("FLAC".utf8)) { return audio("audio/ogg, codec=(string)flac", "FLAC", skip: 0) }
            return .unsupported(reason: "an Ogg stream of a codec oton does not frame")
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

/// One MPEG audio or ADTS frame header.
package struct FrameHeader {
    package var length: Int
    package var caps: String
    package var codec: String
    package var bitrate: Int?

    package init?(_ bytes: [UInt8], at index: Int) {
        let b1 = bytes[index + 1], b2 = bytes[index + 2]
        let layerBits = (b1 >> 1) & 0x03
        if layerBits == 0 {
            // ADTS: 12 sync bits, layer 00; the frame length is 13 bits across bytes 3–5.
            guard index + 6 <= bytes.count, b1 & 0xF0 == 0xF0 else { return nil }
            let frequency = (b2 >> 2) & 0x0F
            guard frequency < 13 else { return nil }
            let length = (Int(bytes[index + 3] & 0x03) << 11) | (Int(bytes[index + 4]) << 3) | Int(bytes[index + 5] >> 5)
            guard length >= 7 else { return nil }
            let version = b1 & 0x08 != 0 ? 2 : 4
            self.length = length
            caps = "audio/mpeg, mpegversion=(int)\(version), stream-format=(string)adts"
            codec = "MPEG-4 AAC"
            bitrate = nil
            return
        }
        let versionBits = (b1 >> 3) & 0x03 // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
        guard versionBits != 1 else { return nil }
        let bitrateIndex = Int(b2 >> 4), rateIndex = Int((b2 >> 2) & 0x03)
        guard bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let layer = 4 - Int(layerBits)
        let mpeg1 = versionBits == 3
        let tables: [[Int]] = mpeg1
            ? [[0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
               [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
               [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]]
            : [[0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
               [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
               [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]]
        let kbps = tables[layer - 1][bitrateIndex]
        let baseRates = [44100, 48000, 32000]
        let rate = baseRates[rateIndex] / (mpeg1 ? 1 : (versionBits == 2 ? 2 : 4))
        let padding = Int((b2 >> 1) & 0x01)
        if layer == 1 {
            length = (12 * kbps * 1000 / rate + padding) * 4
        } else {
            length = (layer == 3 && !mpeg1 ? 72 : 144) * kbps * 1000 / rate + padding
        }
        guard length >= 4 else { return nil }
        caps = "audio/mpeg, mpegversion=(int)1, layer=(int)\(layer)"
        codec = layer == 3 ? (mpeg1 ? "MPEG-1 Layer 3 (MP3)" : "MPEG-2 Layer 3 (MP3)") : "MPEG-1 Layer \(layer)"
        bitrate = kbps * 1000
    }
}
