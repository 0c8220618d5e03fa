/// A JSON number kept as the text it was written as, so that `12345678901234567890`
/// and `1.50` are not rewritten through Double. Every accessor returns nil instead of
/// trapping when the value does not fit; the parser refuses literals whose magnitude
/// overflows Double, so `double` is always finite.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The literal exactly as written (JSON number grammar).
    public let literal: String

    /// Only the parser (which has checked the grammar and the range) makes one from text.
    init(validatedLiteral literal: String) {
        self.literal = literal
    }

    /// A finite Double in its shortest form ("1999", not "1999.0"); nil for inf and nan,
    /// which JSON cannot represent.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            literal = String(Int64(value))  // |value| < 1e15: exact and in range
        } else {
            literal = String(value)
        }
    }

    public init(_ value: Int64) { literal = String(value) }
    public init(_ value: Int) { literal = String(value) }
    public init(_ value: UInt64) { literal = String(value) }

    public var description: String { literal }

    /// The nearest Double (always finite for parsed numbers).
    public var double: Double { Double(literal) ?? .nan }

    /// Whether the literal has no fraction and no exponent.
    private var isPlainInteger: Bool { !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } }

    /// The value as an Int64 when it is a whole number that fits (`1e3` is 1000, `1.5` and
    /// `9223372036854775808` are nil).
    public var int64: Int64? {
        if isPlainInteger { return Int64(literal) }
        let value = double
        guard value.isFinite, value == value.rounded(),
            value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0
        else { return nil }
        return Int64(value)
    }

    /// The value as an Int when it is a whole number that fits.
    public var int: Int? { int64.flatMap { Int(exactly: $0) } }

    /// The value as a UInt64 when it is a whole number from 0 to UInt64.max.
    public var uint64: UInt64? {
        if isPlainInteger { return UInt64(literal) }
        let value = double
        guard value.isFinite, value == value.rounded(), value >= 0, value < 18_446_744_073_709_551_616.0 else { return nil }
        return UInt64(value)
    }
}
