/// Builds Ogg pages (RFC 3533): packets laced into pages, and the CRC every
/// page carries (polynomial 0x04C11DB7, not reflected, initial 0, computed
/// with the CRC field zeroed).
public enum OggPageWriter {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    public static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }

    /// Writes a fresh CRC into a whole page.
    public static func sealed(_ page: [UInt8]) -> [UInt8] {
        var page = page
        guard page.count >= 27 else { return page }
        for index in 22..<26 { page[index] = 0 }
        let value = crc(page)
        for index in 0..<4 { page[22 + index] = UInt8((value >> (8 * UInt32(index))) & 0xFF) }
        return page
    }

    /// A page with the given fields changed and its CRC renewed.
    public static func rewritten(_ page: [UInt8], sequence: UInt32? = nil, granule: Int64? = nil) -> [UInt8] {
        var page = page
        if let sequence { for index in 0..<4 { page[18 + index] = UInt8((sequence >> (8 * UInt32(index))) & 0xFF) } }
        if let granule {
            let bits = UInt64(bitPattern: granule)
            for index in 0..<8 { page[6 + index] = UInt8((bits >> (8 * UInt64(index))) & 0xFF) }
        }
        return sealed(page)
    }

    /// Lays `packets` out in pages of one logical stream, starting at `sequence`, all with `granule`.
    /// The first page continues nothing; a packet that does not fit goes on in the next page.
    public static func paginate(_ packets: [[UInt8]], serial: UInt32, sequence: UInt32, granule: Int64) -> [[UInt8]] {
        // (lacing value, bytes) per segment, packet after packet.
        var segments: [(UInt8, ArraySlice<UInt8>)] = []
        for packet in packets {
            var offset = 0
            while packet.count - offset >= 255 {
                segments.append((255, packet[offset..<offset + 255]))
                offset += 255
            }
            segments.append((UInt8(packet.count - offset), packet[offset...]))
        }
        var pages: [[UInt8]] = []
        var index = 0
        var continued = false
        while index < segments.count {
            let slice = segments[index..<min(index + 255, segments.count)]
            var header: [UInt8] = Array("OggS".utf8) + [0, continued ? 1 : 0]
            let bits = UInt64(bitPattern: granule)
            header += (0..<8).map { UInt8((bits >> (8 * UInt64($0))) & 0xFF) }
            header += (0..<4).map { UInt8((serial >> (8 * UInt32($0))) & 0xFF) }
            let number = sequence + UInt32(pages.count)
            header += (0..<4).map { UInt8((number >> (8 * UInt32($0))) & 0xFF) }
            header += [0, 0, 0, 0, UInt8(slice.count)] + slice.map(\.0)
            pages.append(sealed(header + slice.flatMap(\.1)))
            continued = slice.last?.0 == 255
            index += slice.count
        }
        return pages
    }
}
