/// The bytes of a WAV file written while recording: RIFF, fmt, a fixed
/// 2048-byte region for the tags (a LIST INFO chunk followed by a JUNK
/// chunk that fills the rest), then data. The tags and the sizes are
/// written in place when the file ends, so no copy is needed, and the sizes
/// are refreshed while recording so that a `.part` file left by a crash
/// plays up to its last refresh.
public enum WAVLayout {
    public static let tagRegionOffset = 36
    public static let tagRegionSize = 2048
    public static let dataHeaderOffset = tagRegionOffset + tagRegionSize
    /// Where the samples begin.
    public static let dataOffset = dataHeaderOffset + 8
    /// RIFF sizes are 32 bits: a file stays well below 4 GiB.
    public static let maxDataBytes: UInt64 = 4_000_000_000

    /// Everything before the samples, for `dataBytes` of samples (0 while unknown).
    public static func header(_ format: PCMFormat, dataBytes: UInt32 = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes += ascii("RIFF") + le32(riffSize(dataBytes: dataBytes)) + ascii("WAVE")
        bytes += ascii("fmt ") + le32(16)
        bytes += le16(1) + le16(UInt16(format.channels)) + le32(UInt32(format.rate))
        bytes += le32(UInt32(format.rate * format.bytesPerFrame)) + le16(UInt16(format.bytesPerFrame)) + le16(16)
        bytes += tagRegion(nil)
        bytes += ascii("data") + le32(dataBytes)
        return bytes
    }

    /// The two sizes to write for `dataBytes` of samples: (offset, bytes) pairs.
    public static func sizePatches(dataBytes: UInt64) -> [(offset: Int, bytes: [UInt8])] {
        let data = UInt32(min(dataBytes, maxDataBytes))
        return [(4, le32(riffSize(dataBytes: data))), (dataHeaderOffset + 4, le32(data))]
    }

    /// The tag region: LIST INFO (INAM title, IART artist, IPRD album, ICMT comment; UTF-8,
    /// each cut to fit) and a JUNK chunk filling the rest. Exactly `tagRegionSize` bytes.
    public static func tagRegion(_ tags: TrackTags?) -> [UInt8] {
        var info: [UInt8] = []
        if let tags {
            let items = [("INAM", tags.title), ("IART", tags.artist), ("IPRD", tags.album), ("ICMT", tags.comment)]
            for (id, value) in items {
                guard let value, !value.isEmpty else { continue }
                var text = Array(utf8Prefix(value, maxBytes: 400).utf8) + [0]
                if text.count % 2 == 1 { text.append(0) }
                info += ascii(id) + le32(UInt32(text.count)) + text
            }
        }
        var region: [UInt8] = []
        if !info.isEmpty {
            region += ascii("LIST") + le32(UInt32(4 + info.count)) + ascii("INFO") + info
        }
        let junk = tagRegionSize - region.count - 8
        region += ascii("JUNK") + le32(UInt32(junk)) + [UInt8](repeating: 0, count: junk)
        return region
    }

    private static func riffSize(dataBytes: UInt32) -> UInt32 {
        UInt32(dataOffset - 8) &+ dataBytes
    }

    /// The longest prefix of whole characters that fits in `maxBytes` of UTF-8.
    static func utf8Prefix(_ text: String, maxBytes: Int) -> String {
        var result = ""
        var count = 0
        for character in text {
            let size = String(character).utf8.count
            guard count + size <= maxBytes else { break }
            result.append(character)
            count += size
        }
        return result
    }

    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
}
