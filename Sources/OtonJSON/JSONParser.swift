#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one JSON reader of the host (plugins.json, the status API, the control socket):
/// recursive descent over UTF-8 bytes, linear in the input, with a size and a nesting limit.
///
/// Stricter than Foundation in what people trip over: an object that names a key twice is
/// refused (jq and Python keep the last, Foundation the first: better an error than a silent
/// disagreement), numbers beyond ±1.8e308 are refused, and every error names line:column.
/// Numbers keep their literal text (see JSONNumber).
public struct JSONParser: Sendable {
    /// Arrays and objects nested deeper than this are refused.
    public static let defaultMaxDepth = 64
    /// Longer number literals are refused (no real document has one; it keeps number parsing cheap).
    public static let maxNumberLength = 1024

    public let maxBytes: Int
    public let maxDepth: Int

    public init(maxBytes: Int, maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// Parses one JSON value (any kind at the top) filling the whole text; a UTF-8 byte order mark is skipped.
    public func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        guard data.count <= maxBytes else {
            throw JSONSyntaxError(
                kind: .tooLarge, line: 1, column: 1,
                reason: "the text is \(data.count) bytes; the limit is \(maxBytes) bytes")
        }
        let outcome: Result<JSONValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            var reader = JSONByteReader(bytes: raw.bindMemory(to: UInt8.self), maxDepth: maxDepth)
            do throws(JSONSyntaxError) {
                return .success(try reader.document())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

/// The cursor of one parse. Every byte is looked at a bounded number of times.
private struct JSONByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw fail("the text is empty; expected a JSON value") }
        let result = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected \(found) after the end of the JSON value") }
        return result
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let byte = peek else { throw fail("expected a value, found the end of the text") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("expected a value (object, array, string, number, true, false or null), found \(found)")
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var members: [String: JSONValue] = [:]
        var keyOffsets: [String: Int] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                let trailing = peek == UInt8(ascii: "}") ? " (a comma before '}' is not allowed in JSON)" : ""
                throw fail("expected a key in double quotes, found \(found)\(trailing)")
            }
            let keyOffset = index
            let key = try string()
            if let first = keyOffsets[key] {
                let (line, column) = JSONSyntaxError.position(ofByte: first, in: bytes)
                throw fail(.duplicateKey, at: keyOffset, "duplicate key \(JSONText.quoted(key)) (first at \(line):\(column)); remove one")
            }
            keyOffsets[key] = keyOffset
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':' after the key \(JSONText.quoted(key)), found \(found)") }
            index += 1
            skipWhitespace()
            members[key] = try value(depth: depth)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw fail("expected ',' or '}' after a member of an object, found \(found)")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        try checkDepth(depth)
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            if peek == UInt8(ascii: "]") { throw fail("expected a value, found ']' (a comma before ']' is not allowed in JSON)") }
            items.append(try value(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: throw fail("expected ',' or ']' after an element of an array, found \(found)")
            }
        }
    }

    private func checkDepth(_ depth: Int) throws(JSONSyntaxError) {
        guard depth <= maxDepth else {
            throw fail(.tooDeep, at: index, "arrays and objects nested deeper than \(maxDepth) levels; the limit is \(maxDepth)")
        }
    }

    private mutating func word(_ text: StaticString) throws(JSONSyntaxError) {
        let start = index
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        for byte in expected {
            guard peek == byte else { throw fail(at: start, "expected a value, found \(found(at: start)) (did you mean \(text)? strings need double quotes)") }
            index += 1
        }
    }

    // MARK: Strings

    private mutating func string() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var decoded: [UInt8]? = nil  // only when the string has escapes
        var runStart = index
        while true {
            guard let byte = peek else { throw fail(at: start, "this string is not closed; add the closing '\"'") }
            switch byte {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if decoded == nil { return try text(run, stringStart: start) }
                decoded!.append(contentsOf: run)
                return try text(UnsafeBufferPointer<UInt8>(start: nil, count: 0), prefix: decoded!, stringStart: start)
            case UInt8(ascii: "\\"):
                if decoded == nil { decoded = [] }
                decoded!.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try escape(into: &decoded!)
                runStart = index
            case 0..<0x20:
                throw fail("a control character (byte 0x\(String(byte, radix: 16))) inside a string must be written as an escape such as \\n")
            default:
                index += 1
            }
        }
    }

    private func text(_ run: UnsafeBufferPointer<UInt8>, prefix: [UInt8] = [], stringStart: Int) throws(JSONSyntaxError) -> String {
        let string = prefix.isEmpty ? String(validating: run, as: UTF8.self) : String(validating: prefix, as: UTF8.self)
        guard let string else { throw fail(at: stringStart, "this string is not valid UTF-8; save the file as UTF-8") }
        return string
    }

    private mutating func escape(into out: inout [UInt8]) throws(JSONSyntaxError) {
        let start = index
        index += 1
        guard let letter = peek else { throw fail(at: start, "this string is not closed; add the closing '\"'") }
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(letter)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(escapeStart: start)
            if (0xD800...0xDBFF).contains(scalar) {
                guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail(at: start, "\\u escape of a high surrogate without the low surrogate after it")
                }
                let lowStart = index
                index += 2
                let low = try hex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else { throw fail(at: lowStart, "expected a low surrogate \\uDC00…\\uDFFF here") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail(at: start, "\\u escape of a low surrogate without a high surrogate before it")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail(at: start, "\\u escape is not a Unicode scalar") }
            out.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw fail(at: start, "unknown escape \\\(found(at: index - 1)); JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
    }

    private mutating func hex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = Self.hexValue(byte) else {
                throw fail(at: escapeStart, "\\u must be followed by four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: Numbers

    private mutating func number() throws(JSONSyntaxError) -> JSONNumber {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard isDigit(peek) else { throw fail("expected a digit after '-', found \(found)") }
        if peek == UInt8(ascii: "0") {
            index += 1
            if isDigit(peek) { throw fail(at: start, "a number may not start with 0 (leading zeros are not JSON)") }
        } else {
            skipDigits()
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard isDigit(peek) else { throw fail("expected a digit after the decimal point, found \(found)") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard isDigit(peek) else { throw fail("expected a digit in the exponent, found \(found)") }
            skipDigits()
        }
        guard index - start <= JSONParser.maxNumberLength else {
            throw fail(.numberOutOfRange, at: start, "a number \(index - start) characters long; the limit is \(JSONParser.maxNumberLength)")
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw fail(.numberOutOfRange, at: start, "the number \(literal.prefix(40)) is out of range (beyond ±1.8e308)")
        }
        return JSONNumber(validatedLiteral: literal)
    }

    private func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while isDigit(peek) { index += 1 }
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    // MARK: Errors

    /// What stands at the current place, for messages.
    private var found: String { found(at: index) }

    private func found(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the text" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return byte < 0x80 ? "byte 0x\(String(byte, radix: 16))" : "a non-ASCII character"
    }

    private func fail(_ reason: String) -> JSONSyntaxError { fail(.syntax, at: index, reason) }

    private func fail(at offset: Int, _ reason: String) -> JSONSyntaxError { fail(.syntax, at: offset, reason) }

    private func fail(_ kind: JSONSyntaxError.Kind, at offset: Int, _ reason: String) -> JSONSyntaxError {
        let (line, column) = JSONSyntaxError.position(ofByte: offset, in: bytes)
        return JSONSyntaxError(kind: kind, line: line, column: column, reason: reason)
    }
}
