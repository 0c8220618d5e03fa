/// Reads a gettext `.po` catalogue: `msgid "…"` / `msgstr "…"` pairs, strings
/// continued on the following lines (`"…"` alone on a line), `#` comments and the
/// C escapes gettext writes (`\n \t \r \" \\`). Entries a translator has not
/// translated yet (empty `msgstr`) and entries marked `#, fuzzy` are skipped, as
/// gettext does. `msgctxt` and plural entries are accepted and ignored: oton's
/// messages are whole sentences with named placeholders and need neither.
///
/// A damaged file is refused as a whole, with the line to look at: a half-read
/// catalogue would mix languages in ways nobody chose.
public enum POFileReader {
    public struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
        /// From 1.
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The translations in `text`: msgid → msgstr, only entries with a translation.
    public static func translations(in text: String) throws(SyntaxError) -> [String: String] {
        var reader = EntryAssembler()
        var number = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var line = Substring(rawLine)
            if number == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
            if line.last == "\r" { line = line.dropLast() }
            try reader.take(line.drop { $0 == " " || $0 == "\t" }, line: number)
        }
        try reader.finish(line: number)
        return reader.translations
    }

    /// The contents of one `"…"` string, its escapes resolved; `line` only for the error.
    package static func unquoted(_ text: Substring, line: Int) throws(SyntaxError) -> String {
        let trimmed = text.trimmingSuffix { $0 == " " || $0 == "\t" }
        guard trimmed.count >= 2, trimmed.first == "\"", trimmed.last == "\"" else {
            throw SyntaxError(line: line, reason: "expected a string in double quotes, found \(trimmed.prefix(40))")
        }
        var result = ""
        var escaping = false
        for character in trimmed.dropFirst().dropLast() {
            if escaping {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                default: throw SyntaxError(line: line, reason: "unknown escape \\\(character) (use \\n, \\t, \\\" or \\\\)")
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "\"" {
                throw SyntaxError(line: line, reason: "a double quote inside a string must be written \\\"")
            } else {
                result.append(character)
            }
        }
        if escaping { throw SyntaxError(line: line, reason: "the string ends with a lone backslash") }
        return result
    }
}

/// Collects one entry at a time from the lines of a `.po` file.
private struct EntryAssembler {
    private enum Field { case context, id, plural, string, pluralString }

    var translations: [String: String] = [:]
    private var fuzzy = false
    private var context: String?
    private var id: String?
    private var idLine = 0
    private var string: String?
    private var isPlural = false
    private var field: Field?

    mutating func take(_ line: Substring, line number: Int) throws(POFileReader.SyntaxError) {
        if line.isEmpty { return }
        if line.hasPrefix("#") {
            // A comment after an entry's strings begins the next entry.
            if string != nil { try finish(line: number) }
            if line.hasPrefix("#,"), line.contains("fuzzy") { fuzzy = true }
            return
        }
        if line.hasPrefix("\"") {
            let more = try POFileReader.unquoted(line, line: number)
            switch field {
            case .context?: context? += more
            case .id?: id? += more
            case .string?: string? += more
            case .plural?, .pluralString?: break
            case nil: throw POFileReader.SyntaxError(line: number, reason: "a string continues nothing (put msgid or msgstr before it)")
            }
            return
        }
        let keyword = line.prefix { $0 != " " && $0 != "\t" && $0 != "\"" }
        let value = try POFileReader.unquoted(line.dropFirst(keyword.count).drop { $0 == " " || $0 == "\t" }, line: number)
        switch keyword {
        case "msgctxt":
            if string != nil { try finish(line: number) }
            context = value
            field = .context
        case "msgid":
            if string != nil { try finish(line: number) }
            guard id == nil else { throw POFileReader.SyntaxError(line: number, reason: "msgid without a msgstr after the msgid on line \(idLine)") }
            id = value
            idLine = number
            field = .id
        case "msgid_plural":
            guard id != nil, string == nil else { throw POFileReader.SyntaxError(line: number, reason: "msgid_plural must follow a msgid") }
            isPlural = true
            field = .plural
        case "msgstr":
            guard id != nil, string == nil else { throw POFileReader.SyntaxError(line: number, reason: "msgstr without a msgid before it") }
            string = value
            field = .string
        default:
            if keyword.hasPrefix("msgstr["), isPlural, id != nil {
                string = string ?? ""
                field = .pluralString
                return
            }
            throw POFileReader.SyntaxError(
                line: number, reason: "unknown keyword \(keyword.prefix(40)) (expected msgid, msgstr, msgctxt or a comment starting with #)")
        }
    }

    /// Ends the entry being read (at a new entry or the end of the file).
    mutating func finish(line number: Int) throws(POFileReader.SyntaxError) {
        defer {
            (fuzzy, context, id, string, isPlural, field) = (false, nil, nil, nil, false, nil)
        }
        guard let id else {
            if context != nil { throw POFileReader.SyntaxError(line: number, reason: "msgctxt without a msgid") }
            return
        }
        guard let string else { throw POFileReader.SyntaxError(line: idLine, reason: "msgid without a msgstr") }
        // The header (empty msgid), untranslated and fuzzy entries, context and plural entries: not used.
        guard !id.isEmpty, !string.isEmpty, !fuzzy, context == nil, !isPlural else { return }
        guard translations[id] == nil else {
            throw POFileReader.SyntaxError(line: idLine, reason: "the msgid \"\(id.prefix(40))\" appears twice")
        }
        translations[id] = string
    }
}

private extension Substring {
    func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var result = self
        while let last = result.last, predicate(last) { result = result.dropLast() }
        return result
    }
}
