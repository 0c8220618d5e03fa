/// The binary bodies of the two frames that carry the bulk (events and media): fixed-width
/// little-endian numbers and length-prefixed UTF-8 strings, read back with bounds checked, so the
/// hot path never goes through JSON. Anything short or malformed reads as nil.
struct IsolationBinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    mutating func string(_ value: String) {
        let utf8 = value.utf8
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func raw(_ buffer: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: buffer)
    }
}

struct IsolationBinaryReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: ArraySlice<UInt8> { bytes[offset...] }

    mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u32() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        defer { offset += 4 }
        return (0 ..< 4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32($1 * 8) }
    }

    mutating func u64() -> UInt64? {
        guard offset + 8 <= bytes.count else { return nil }
        defer { offset += 8 }
        return (0 ..< 8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << UInt64($1 * 8) }
    }

    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }

    mutating func string() -> String? {
        guard let count = u32().map(Int.init), offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return String(decoding: bytes[offset ..< offset + count], as: UTF8.self)
    }
}
