/// Why a JSON text was refused, with the position a person can find in an editor.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Not JSON at all at that place (a missing comma, a stray character, bad UTF-8…).
        case syntax
        /// Arrays and objects nested deeper than the limit.
        case tooDeep
        /// The whole text is longer than the limit; nothing was parsed.
        case tooLarge
        /// An object names the same key twice.
        case duplicateKey
        /// A number too large for a Double (1e400).
        case numberOutOfRange
    }

    public let kind: Kind
    /// Both from 1; the column counts characters, not bytes.
    public let line: Int
    public let column: Int
    /// A sentence saying what is wrong and, where it helps, what to do.
    public let reason: String

    public init(kind: Kind, line: Int, column: Int, reason: String) {
        self.kind = kind
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String { "\(line):\(column): \(reason)" }

    /// Line and column (both from 1) of the byte at `offset`; columns count UTF-8 lead bytes.
    static func position(ofByte offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(max(0, offset)) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}
