/// A QR code encoder for short text such as a URL: byte mode, error correction L or M, versions
/// 1–6 (up to 134 bytes at L), the mask chosen by the standard's penalty rules (ISO/IEC 18004).
/// Pure; `modules[y][x]` is true for a dark module.
public struct QRCode: Sendable, Equatable {
    public enum Correction: Sendable {
        case low, medium

        /// The two format-information bits of the level (L = 01, M = 00).
        var formatBits: Int { self == .low ? 1 : 0 }
        /// Error correction codewords per block and number of blocks, for versions 1–6.
        var eccPerBlock: [Int] { self == .low ? [7, 10, 15, 20, 26, 18] : [10, 16, 26, 18, 24, 16] }
        var blocks: [Int] { self == .low ? [1, 1, 1, 1, 1, 2] : [1, 1, 1, 2, 2, 4] }
    }

    public struct TooLong: Error, CustomStringConvertible {
        public let description: String
    }

    public let version: Int
    public let mask: Int
    public let modules: [[Bool]]
    public var size: Int { modules.count }

    /// All codewords of a symbol, by version 1–6.
    static let totalCodewords = [26, 44, 70, 100, 134, 172]
    /// The second alignment pattern coordinate, by version 2–6 (the first is always 6).
    static let alignmentPosition = [0, 18, 22, 26, 30, 34]

    public static func dataCapacity(version: Int, correction: Correction) -> Int {
        totalCodewords[version - 1] - correction.eccPerBlock[version - 1] * correction.blocks[version - 1]
    }

    public init(encoding text: String, correction: Correction = .low) throws(TooLong) {
        let bytes = Array(text.utf8)
        guard let version = (1 ... 6).first(where: { 4 + 8 + 8 * bytes.count <= 8 * Self.dataCapacity(version: $0, correction: correction) }) else {
            throw TooLong(description: "\(bytes.count) bytes do not fit a version 1–6 QR code (at most \(Self.dataCapacity(version: 6, correction: correction) - 2))")
        }
        let data = Self.dataCodewords(bytes, capacity: Self.dataCapacity(version: version, correction: correction))
        let codewords = Self.interleaved(data, version: version, correction: correction)
        var matrix = Matrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(codewords)
        var best: (mask: Int, penalty: Int, modules: [[Bool]])?
        for mask in 0 ..< 8 {
            var candidate = matrix
            candidate.applyMask(mask)
            candidate.drawFormatBits(Self.formatBits(correction: correction, mask: mask))
            let penalty = candidate.penalty()
            if best == nil || penalty < best!.penalty { best = (mask, penalty, candidate.modules) }
        }
        self.version = version
        mask = best!.mask
        modules = best!.modules
    }

    /// Mode 0100 (byte), an 8-bit count, the bytes, up to four zero bits, then 0xEC 0x11 padding.
    static func dataCodewords(_ bytes: [UInt8], capacity: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, 8)
        for byte in bytes { append(Int(byte), 8) }
        append(0, min(4, capacity * 8 - bits.count))
        while bits.count % 8 != 0 { bits.append(false) }
        var out: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start ..< start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while out.count < capacity {
            out.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return out
    }

    /// Splits the data into blocks (short ones first), adds each block's Reed–Solomon codewords and interleaves.
    static func interleaved(_ data: [UInt8], version: Int, correction: Correction) -> [UInt8] {
        let blockCount = correction.blocks[version - 1]
        let eccLength = correction.eccPerBlock[version - 1]
        let raw = totalCodewords[version - 1]
        let shortBlocks = blockCount - raw % blockCount
        let shortLength = raw / blockCount
        let divisor = ReedSolomon.divisor(degree: eccLength)
        var blocks: [[UInt8]] = []
        var offset = 0
        for index in 0 ..< blockCount {
            let length = shortLength - eccLength + (index < shortBlocks ? 0 : 1)
            let part = Array(data[offset ..< offset + length])
            offset += length
            // A short block gets a placeholder where the long ones have their last data codeword.
            blocks.append(part + (index < shortBlocks ? [0] : []) + ReedSolomon.remainder(part, divisor: divisor))
        }
        var out: [UInt8] = []
        for column in 0 ..< shortLength + 1 {
            for (index, block) in blocks.enumerated() where column != shortLength - eccLength || index >= shortBlocks {
                out.append(block[column])
            }
        }
        return out
    }

    /// The 15 format bits: level and mask, a BCH(15,5) remainder, XOR 0x5412.
    static func formatBits(correction: Correction, mask: Int) -> Int {
        let data = correction.formatBits << 3 | mask
        var remainder = data
        for _ in 0 ..< 10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder) ^ 0x5412
    }
}

/// Reed–Solomon over GF(2^8) with the QR polynomial 0x11D.
enum ReedSolomon {
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var result = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            result = (result << 1) ^ ((result >> 7) * 0x11D)
            result ^= ((Int(y) >> bit) & 1) * Int(x)
        }
        return UInt8(result & 0xFF)
    }

    static func divisor(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0 ..< degree {
            for index in 0 ..< degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree { result[index] ^= result[index + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices { result[index] ^= multiply(divisor[index], factor) }
        }
        return result
    }
}
