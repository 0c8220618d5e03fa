/// Single-byte code pages used to decode stream titles that are not UTF-8.
///
/// Written out by hand instead of using `String(data:encoding:)` so decoding
/// does not depend on which converters the platform's Foundation/ICU ships.
/// Bytes 0x00–0x7F are ASCII in both code pages and are not listed.
public enum LegacyCodePage: String, Sendable, CaseIterable {
    /// Windows-1251 (Cyrillic: Russian, Ukrainian, Belarusian, Bulgarian, Serbian).
    case windows1251
    /// ISO-8859-1 with the Windows-1252 printable characters in 0x80–0x9F
    /// (€, „, “, ”, …, Š, Ž, Œ). This is what "Latin-1" titles really are in
    /// practice; the five bytes undefined in 1252 fall back to their Latin-1
    /// C1 control meaning (and are later stripped as control characters).
    case latin1

    /// Decodes `bytes` in this code page. Never fails; an undefined byte
    /// (only 0x98 in Windows-1251) is dropped.
    public func decode(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        for byte in bytes {
            if let scalar = self.scalar(for: byte) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// The Unicode scalar for one byte, or `nil` if the byte is undefined.
    public func scalar(for byte: UInt8) -> Unicode.Scalar? {
        if byte < 0x80 { return Unicode.Scalar(byte) }
        switch self {
        case .windows1251:
            let value = Self.cp1251High[Int(byte - 0x80)]
            return value == 0 ? nil : Unicode.Scalar(value)
        case .latin1:
            if byte < 0xA0 {
                let value = Self.cp1252C1[Int(byte - 0x80)]
                return Unicode.Scalar(value == 0 ? UInt32(byte) : value)
            }
            return Unicode.Scalar(byte)
        }
    }

    /// Windows-1251, bytes 0x80–0xFF. `0` marks the one undefined byte (0x98).
    private static let cp1251High: [UInt32] = [
        0x0402, 0x0403, 0x201A, 0x0453, 0x201E, 0x2026, 0x2020, 0x2021,
        0x20AC, 0x2030, 0x0409, 0x2039, 0x040A, 0x040C, 0x040B, 0x040F,
        0x0452, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x0000, 0x2122, 0x0459, 0x203A, 0x045A, 0x045C, 0x045B, 0x045F,
        0x00A0, 0x040E, 0x045E, 0x0408, 0x00A4, 0x0490, 0x00A6, 0x00A7,
        0x0401, 0x00A9, 0x0404, 0x00AB, 0x00AC, 0x00AD, 0x00AE, 0x0407,
        0x00B0, 0x00B1, 0x0406, 0x0456, 0x0491, 0x00B5, 0x00B6, 0x00B7,
        0x0451, 0x2116, 0x0454, 0x00BB, 0x0458, 0x0405, 0x0455, 0x0457,
        0x0410, 0x0411, 0x0412, 0x0413, 0x0414, 0x0415, 0x0416, 0x0417,
        0x0418, 0x0419, 0x041A, 0x041B, 0x041C, 0x041D, 0x041E, 0x041F,
        0x0420, 0x0421, 0x0422, 0x0423, 0x0424, 0x0425, 0x0426, 0x0427,
        0x0428, 0x0429, 0x042A, 0x042B, 0x042C, 0x042D, 0x042E, 0x042F,
        0x0430, 0x0431, 0x0432, 0x0433, 0x0434, 0x0435, 0x0436, 0x0437,
        0x0438, 0x0439, 0x043A, 0x043B, 0x043C, 0x043D, 0x043E, 0x043F,
        0x0440, 0x0441, 0x0442, 0x0443, 0x0444, 0x0445, 0x0446, 0x0447,
        0x0448, 0x0449, 0x044A, 0x044B, 0x044C, 0x044D, 0x044E, 0x044F,
    ]

    /// Windows-1252, bytes 0x80–0x9F. `0` = undefined in 1252 (keep Latin-1 C1).
    private static let cp1252C1: [UInt32] = [
        0x20AC, 0x0000, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x0000, 0x017D, 0x0000,
        0x0000, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x0000, 0x017E, 0x0178,
    ]
}
