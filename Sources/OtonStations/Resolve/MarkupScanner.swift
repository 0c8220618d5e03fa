import Foundation
import OtonMedia

/// A tiny, forgiving reader for the XML-like playlists (XSPF, ASX): finds
/// elements and attributes by name, ignoring case, without requiring
/// well-formed XML (real ASX files often are not). No entities are expanded
/// except character references, no DTDs are read, and every search is linear.
package struct MarkupScanner {
    package struct Element {
        package var inner: String
    }

    package struct OpenTag {
        /// The tag's text after its name, up to (not including) `>`.
        package var body: [UInt8]

        /// An attribute's value, quoted or not, with character references decoded.
        package func attribute(_ name: String) -> String? {
            let lower = MarkupScanner.asciiLowercased(body)
            let key = Array(name.lowercased().utf8)
            var from = 0
            while let at = MarkupScanner.find(key, in: lower, from: from) {
                from = at + key.count
                guard at == 0 || MarkupScanner.isSpace(lower[at - 1]) else { continue }
                var index = at + key.count
                while index < body.count, MarkupScanner.isSpace(body[index]) { index += 1 }
                guard index < body.count, body[index] == UInt8(ascii: "=") else { continue }
                index += 1
                while index < body.count, MarkupScanner.isSpace(body[index]) { index += 1 }
                guard index < body.count else { return nil }
                let quote = body[index]
                var end: Int
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    index += 1
                    end = index
                    while end < body.count, body[end] != quote { end += 1 }
                } else {
                    end = index
                    while end < body.count, !MarkupScanner.isSpace(body[end]) { end += 1 }
                    if end == body.count, end > index, body[end - 1] == UInt8(ascii: "/") { end -= 1 }  // <ref href=x/>
                }
                return CharacterReferences.decode(String(decoding: body[index..<end], as: UTF8.self))
            }
            return nil
        }
    }

    private let bytes: [UInt8]
    private let lower: [UInt8]

    package init(_ text: String) {
        bytes = Array(text.utf8)
        lower = Self.asciiLowercased(bytes)
    }

    /// The text before the first `<tag`, or all of it.
    package func before(tag name: String) -> String {
        let end = openTagStart(name, from: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Every `<name …>…</name>` in order (a self-closing `<name/>` is empty; an unclosed one runs to the end).
    package func elements(_ name: String) -> [Element] {
        var found: [Element] = []
        let close = Array("</\(name.lowercased())".utf8)
        var from = 0
        while let start = openTagStart(name, from: from), let tagEnd = tagEnd(from: start) {
            if tagEnd > 0, bytes[tagEnd - 1] == UInt8(ascii: "/") {
                found.append(Element(inner: ""))
                from = tagEnd + 1
                continue
            }
            let innerStart = tagEnd + 1
            let closing = Self.find(close, in: lower, from: innerStart) ?? bytes.count
            found.append(Element(inner: String(decoding: bytes[innerStart..<closing], as: UTF8.self)))
            from = closing
            if from >= bytes.count { break }
        }
        return found
    }

    /// Every `<name …>` tag in order, for its attributes.
    package func openTags(_ name: String) -> [OpenTag] {
        var found: [OpenTag] = []
        var from = 0
        let nameLength = name.utf8.count + 1
        while let start = openTagStart(name, from: from), let end = tagEnd(from: start) {
            found.append(OpenTag(body: Array(bytes[(start + nameLength)..<end])))
            from = end + 1
        }
        return found
    }

    /// An element's text: CDATA unwrapped, character references decoded, whitespace trimmed.
    package static func text(_ inner: String) -> String {
        var text = inner.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("<![CDATA["), text.hasSuffix("]]>") {
            return String(text.dropFirst(9).dropLast(3)).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        text = CharacterReferences.decode(text)
        return text
    }

    // MARK: bytes

    /// Where `<name` starts, followed by a space, `>` or `/` (so `<track` does not match `<trackList`).
    private func openTagStart(_ name: String, from: Int) -> Int? {
        let open = Array("<\(name.lowercased())".utf8)
        var from = from
        while let at = Self.find(open, in: lower, from: from) {
            let next = at + open.count
            if next >= lower.count || Self.isSpace(lower[next]) || lower[next] == UInt8(ascii: ">") || lower[next] == UInt8(ascii: "/") {
                return at
            }
            from = next
        }
        return nil
    }

    /// The `>` that ends the tag starting at `start`, skipping quoted attribute values.
    private func tagEnd(from start: Int) -> Int? {
        var quote: UInt8?
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return index
            }
            index += 1
        }
        return nil
    }

    package static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var index = from
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    package static func asciiLowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    }

    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
