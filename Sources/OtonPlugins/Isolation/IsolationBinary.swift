/// The binary bodies of the two frames that carry the bulk (events and media): fixed-width
/// little-endian numbers and length-prefixed UTF-8 strings, read back with bounds checked, so the
/// hot path never goes through JSON. Anything short or malformed reads as nil.
package struct IsolationBinaryWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func u8(_ value: UInt8) { bytes.append(value) }

    package mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    package mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    package mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    package mutating func string(_ value: String) {
        let utf8 = value.utf8
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    package mutating func raw(_ buffer: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: buffer)
    }
}

package struct IsolationBinaryReader {
    private let bytes: [UInt8]
    package private(set) var offset = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var remaining: ArraySlice<UInt8> { bytes[offset...] }

    package mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u32() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        defer { offset += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32($1 * 8) }
    }

    package mutating func u64() -> UInt64? {
        guard offset + 8 <= bytes.count else { return nil }
        defer { offset += 8 }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << UInt64($1 * 8) }
    }

    package mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }

    package mutating func string() -> String? {
        guard let count = u32().map(Int.init), offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }
}
