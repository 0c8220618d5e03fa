/// A parsed Ogg page header (RFC 3533).
public struct OggPage: Equatable, Sendable {
    public var headerType: UInt8
    public var granule: Int64
    public var serial: UInt32
    public var sequence: UInt32
    public var headerLength: Int
    public var length: Int

    public var isBOS: Bool { headerType & 0x02 != 0 }
    public var isEOS: Bool { headerType & 0x04 != 0 }
    public var isContinuation: Bool { headerType & 0x01 != 0 }

    public static func startsWithCapture(_ bytes: [UInt8], at index: Int) -> Bool {
        index + 27 <= bytes.count && bytes[index] == 0x4F && bytes[index + 1] == 0x67 && bytes[index + 2] == 0x67
            && bytes[index + 3] == 0x53 && bytes[index + 4] == 0
    }

    /// Parses the page header at `index` (the segment table must be present), or nil.
    public init?(_ bytes: [UInt8], at index: Int) {
        guard index + 27 <= bytes.count, bytes[index] == 0x4F, bytes[index + 1] == 0x67, bytes[index + 2] == 0x67,
            bytes[index + 3] == 0x53, bytes[index + 4] == 0
        else { return nil }
        func le(_ at: Int, _ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for byte in 0..<count { value |= UInt64(bytes[index + at + byte]) << (8 * UInt64(byte)) }
            return value
        }
        let segments = Int(bytes[index + 26])
        guard index + 27 + segments <= bytes.count else { return nil }
        headerType = bytes[index + 5]
        granule = Int64(bitPattern: le(6, 8))
        serial = UInt32(le(14, 4))
        sequence = UInt32(le(18, 4))
        headerLength = 27 + segments
        var bodyLength = 0
        for segment in 0..<segments { bodyLength += Int(bytes[index + 27 + segment]) }
        length = headerLength + bodyLength
    }
}

extension OggPage {
    /// The next page header at or after `from`: where its page starts, and the header. The page ends
    /// at `start + page.length`, which may lie beyond the bytes (not whole yet). nil when no header
    /// is complete there yet.
    public static func next(in bytes: [UInt8], from: Int) -> (start: Int, page: OggPage)? {
        var at = from
        while at + 27 <= bytes.count {
            if startsWithCapture(bytes, at: at) {
                return OggPage(bytes, at: at).map { (at, $0) }  // nil: its segment table is on its way
            }
            at += 1
        }
        return nil
    }
}
