import OtonJSON

/// Byte ranges of values inside JSON text that `JSONParser` has already accepted, so one
/// value can be replaced while every other byte of the file stays as the person wrote it.
/// It trusts the text to be valid JSON; on anything else its ranges are meaningless.
package struct JSONSpans {
    package let bytes: [UInt8]

    package struct Member {
        package var key: String
        package var value: Range<Int>
    }

    package func skipWhitespace(from start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    /// Where the top-level value starts (after a byte order mark and whitespace).
    package var rootStart: Int {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return skipWhitespace(from: start)
    }

    /// One past the last byte of the value starting at `start`.
    package func endOfValue(at start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""): return endOfString(at: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""): index = endOfString(at: index); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return index
        default:
            var index = start
            while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                index += 1
            }
            return index
        }
    }

    private func endOfString(at start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") { index += 2; continue }
            if bytes[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 1
        }
        return index
    }

    /// The members of the object starting at `start` (its `{`), keys decoded.
    package func members(ofObjectAt start: Int) -> [Member] {
        var out: [Member] = []
        var index = skipWhitespace(from: start + 1)
        while index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let keyEnd = endOfValue(at: index)
            let key = (try? JSONValue.parse(.init(bytes[index..<keyEnd])))?.stringValue ?? ""
            index = skipWhitespace(from: keyEnd) + 1  // the colon
            let valueStart = skipWhitespace(from: index)
            let valueEnd = endOfValue(at: valueStart)
            out.append(Member(key: key, value: valueStart..<valueEnd))
            index = skipWhitespace(from: valueEnd)
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index = skipWhitespace(from: index + 1) }
        }
        return out
    }

    /// The elements of the array starting at `start` (its `[`).
    package func elements(ofArrayAt start: Int) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var index = skipWhitespace(from: start + 1)
        while index < bytes.count, bytes[index] != UInt8(ascii: "]") {
            let end = endOfValue(at: index)
            out.append(index..<end)
            index = skipWhitespace(from: end)
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index = skipWhitespace(from: index + 1) }
        }
        return out
    }
}
