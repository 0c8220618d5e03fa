/// Turns a name template such as `{station}/{artist} - {title}.{ext}` into a
/// relative path that is safe to create inside the output folder: values
/// never contain `/`, no component is `.` or `..` or empty, control
/// characters are removed, each component is capped in bytes (at a
/// character boundary, keeping the extension) and non-Latin text is kept.
/// Portable names (the default) also work on FAT/exFAT sticks, SMB shares and
/// Windows: see ``portableComponent(_:)``.
public struct FileNameTemplate: Equatable, Sendable {
    public static let standard = "{station}/{artist} - {title}.{ext}"
    /// Linux allows 255 bytes per name; leave room for " (99)" and ".part".
    public static let maxComponentBytes = 200

    public let text: String
    /// Names every filesystem accepts (true, the default), or every character Linux allows (`--names posix`).
    public var portable = true

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static let placeholders: Set<String> = ["station", "artist", "title", "ext", "date", "time", "start", "sequence"]

    public init(_ text: String) throws(Invalid) {
        try self.init(text, placeholders: Self.placeholders)
    }

    /// A template with other placeholders (the archive's: ``ArchiveNaming``).
    public init(_ text: String, placeholders known: Set<String>) throws(Invalid) {
        guard !text.isEmpty else { throw Invalid(description: "the name template is empty") }
        guard !text.hasPrefix("/") else { throw Invalid(description: "the name template must be relative to the output folder: \(text)") }
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw Invalid(description: "unclosed { in the name template: \(text)")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard known.contains(name) else {
                throw Invalid(
                    description: "unknown placeholder {\(name)} in the name template; known: " + known.sorted().map { "{\($0)}" }.joined(separator: " "))
            }
            rest = rest[rest.index(after: close)...]
        }
        guard text.contains("{ext}") || text.hasSuffix(".mp3") || text.hasSuffix(".ogg") else {
            throw Invalid(description: "the name template should end with .{ext}: \(text)")
        }
        self.text = text
    }

    /// The value a track without a title is named by (``render(_:)``): when it started,
    /// "2026-11-27 15.03.12". Not a placeholder a template can name.
    public static let titlelessMoment = "titleless-moment"

    /// The relative path for these values; unknown values get a readable stand-in. A track with
    /// neither artist nor title (a titleless station) is named by its station and the moment it
    /// started ("Radio X - 2026-11-27 15.03.12"), as streamripper names them, not
    /// "Unknown artist - Unknown title (2)".
    public func render(_ values: [String: String]) -> String {
        var values = values
        if Self.clean(values["artist"]).isEmpty, Self.clean(values["title"]).isEmpty, let moment = values[Self.titlelessMoment] {
            values["artist"] = Self.clean(values["station"]).isEmpty ? nil : values["station"]
            values["title"] = moment
        }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            out += Self.value(values[name], for: name)
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return Self.safePath(out, portable: portable)
    }

    private static func clean(_ raw: String?) -> String {
        (raw ?? "").unicodeScalars
            .filter { !isControl($0) }
            .map { $0 == "/" || $0 == "\\" ? "-" : String($0) }
            .joined()
            .trimmingSpaces
    }

    private static func value(_ raw: String?, for name: String) -> String {
        let cleaned = clean(raw)
        if !cleaned.isEmpty { return cleaned }
        switch name {
        case "artist": return "Unknown artist"
        case "title": return "Unknown title"
        case "station": return "Unknown station"
        case "ext": return "bin"
        default: return "_"
        }
    }

    /// Splits on `/` and makes every component safe; never returns an absolute path or `..`.
    public static func safePath(_ path: String, portable: Bool = true) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).map { safeComponent(String($0), portable: portable) }
        return components.isEmpty ? "_" : components.joined(separator: "/")
    }

    public static func safeComponent(_ component: String, portable: Bool = true) -> String {
        var text = String(String.UnicodeScalarView(component.unicodeScalars.filter { !isControl($0) && $0 != "/" }))
        if portable { text = portableCharacters(text) }
        text = text.trimmingSpaces
        // A leading dot hides the file and "." / ".." walk the tree.
        while text.hasPrefix(".") { text.removeFirst() }
        text = text.trimmingSpaces
        if text.isEmpty { return "_" }
        text = capped(text, bytes: maxComponentBytes)
        return portable ? portableEnding(text) : text
    }

    /// What FAT, exFAT, NTFS and SMB refuse in a name, each replaced by the ASCII character that reads
    /// most like it: `AC/DC: Live?` becomes `AC-DC - Live`. A title stays recognisable and easy to type.
    static let portableReplacements: [Character: String] = [
        ":": " -", "?": "", "*": "-", "\"": "'", "<": "(", ">": ")", "|": "-", "\\": "-",
    ]

    static func portableCharacters(_ text: String) -> String {
        var out = ""
        for character in text {
            for replaced in portableReplacements[character] ?? String(character) {
                // " -" after a word that already ended in a space ("a : b") must not double the space.
                if replaced == " " && out.last == " " { continue }
                out.append(replaced)
            }
        }
        return out
    }

    /// Windows drops trailing dots and spaces (so "Song." and "Song" collide) and reserves device names.
    static func portableEnding(_ text: String) -> String {
        var result = text
        if let dot = result.lastIndex(of: "."), result.distance(from: dot, to: result.endIndex) <= 8, dot != result.startIndex {
            // Keep the extension; the stem must not end in a dot or space either ("Song. .mp3").
            var stem = String(result[..<dot])
            while let last = stem.last, last == "." || last == " " { stem.removeLast() }
            result = (stem.isEmpty ? "_" : stem) + result[dot...]
        }
        while let last = result.last, last == "." || last == " " { result.removeLast() }
        if result.isEmpty { return "_" }
        let device = result.split(separator: ".", maxSplits: 1).first.map { String($0).trimmingSpaces.uppercased() } ?? ""
        if reservedDeviceNames.contains(device) { result = "_" + result }
        return result
    }

    static let reservedDeviceNames: Set<String> = Set(["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    /// Cuts `text` to at most `bytes` UTF-8 bytes at a character boundary, keeping a short extension.
    public static func capped(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var stem = text
        var ext = ""
        if let dot = text.lastIndex(of: "."), text.distance(from: dot, to: text.endIndex) <= 8 {
            stem = String(text[..<dot])
            ext = String(text[dot...])
        }
        var result = ""
        for character in stem {
            if result.utf8.count + String(character).utf8.count + ext.utf8.count > bytes { break }
            result.append(character)
        }
        return result.trimmingSpaces + ext
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
