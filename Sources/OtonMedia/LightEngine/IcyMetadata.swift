/// The fields of one ICY metadata block: `StreamTitle='Artist - Title';StreamUrl='…';`.
///
/// Values are raw bytes (servers send UTF-8, Windows-1251, Latin-1 …): ``TitleByteDecoder``
/// decides what they say. A quote inside a value is allowed (servers do not escape it): a value
/// ends at the last `';` before the next `Key='` or the end of the block.
public struct IcyMetadata: Equatable, Sendable {
    /// nil when the block has no StreamTitle; empty when the title is empty (a break).
    public var title: [UInt8]?
    public var url: [UInt8]?

    public init(block: [UInt8]) {
        var bytes = block
        while bytes.last == 0 { bytes.removeLast() }
        // NUL inside the block ends it, as a C string would.
        if let nul = bytes.firstIndex(of: 0) { bytes.removeSubrange(nul...) }
        title = Self.value(of: Array("StreamTitle='".utf8), in: bytes)
        url = Self.value(of: Array("StreamUrl='".utf8), in: bytes)
    }

    private static func value(of key: [UInt8], in bytes: [UInt8]) -> [UInt8]? {
        guard let start = find(key, in: bytes, from: 0) else { return nil }
        let valueStart = start + key.count
        // The value runs to the next `';` followed by another `Key='` or by the end.
        var end = bytes.count
        var search = valueStart
        while let quote = find(Array("';".utf8), in: bytes, from: search) {
            let after = quote + 2
            if after >= bytes.count || startsKey(bytes, at: after) {
                end = quote
                break
            }
            search = quote + 1
        }
        if end == bytes.count, bytes.last == UInt8(ascii: "'") { end -= 1 }
        guard end >= valueStart else { return [] }
        return Array(bytes[valueStart..<end])
    }

    /// `Name='` at `index`: letters, then `='`.
    private static func startsKey(_ bytes: [UInt8], at index: Int) -> Bool {
        var position = index
        while position < bytes.count, (0x41...0x5A).contains(bytes[position]) || (0x61...0x7A).contains(bytes[position]) {
            position += 1
        }
        return position > index && position + 1 < bytes.count && bytes[position] == UInt8(ascii: "=") && bytes[position + 1] == UInt8(ascii: "'")
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard needle.count <= bytes.count, from <= bytes.count - needle.count else { return nil }
        outer: for index in from...(bytes.count - needle.count) {
            for offset in 0..<needle.count where bytes[index + offset] != needle[offset] { continue outer }
            return index
        }
        return nil
    }
}
