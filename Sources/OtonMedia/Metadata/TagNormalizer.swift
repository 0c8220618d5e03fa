/// A stream title after decoding, cleaning and "Artist - Title" splitting.
///
/// Invariant: `title` is empty only when there is nothing to show at all, and
/// then `artist` is `nil` too. A lone artist therefore never appears without
/// a title (see ``TagNormalizer/split(_:)``).
public struct NormalizedTitle: Equatable, Hashable, Sendable {
    public var title: String
    public var artist: String?
    /// The cleaned full title string, before splitting.
    public var raw: String

    public init(title: String, artist: String?, raw: String) {
        self.title = title
        self.artist = artist
        self.raw = raw
    }

    /// No track information (empty title, "-", only whitespace/controls…).
    public var isEmpty: Bool { title.isEmpty && artist == nil }

    public static let empty = NormalizedTitle(title: "", artist: nil, raw: "")
}

/// Normalizes untrusted stream titles (ICY `StreamTitle`, GStreamer TITLE /
/// ARTIST tags, status-API strings) for display.
///
/// Steps: decode bytes (``TitleByteDecoder``) → ``clean(_:)`` → ``split(_:)``.
public struct TagNormalizer: Sendable {
    /// Longest cleaned string, in grapheme clusters, including the "…".
    public var maxCharacters: Int

    public init(maxCharacters: Int = 512) {
        self.maxCharacters = max(1, maxCharacters)
    }

    /// Decodes, cleans and splits raw title bytes. A non-empty explicit
    /// `artist` tag wins over splitting the title (see the `String` overload).
    public func normalize(title: [UInt8], artist: [UInt8]? = nil) -> NormalizedTitle {
        normalize(
            title: TitleByteDecoder.decode(title).text,
            artist: artist.map { TitleByteDecoder.decode($0).text }
        )
    }

    /// Cleans and splits an already decoded title.
    ///
    /// With a non-empty explicit `artist`, the title is not split; only a
    /// leading copy of that artist ("Artist - Song" with ARTIST = "Artist",
    /// compared case-insensitively) is removed from it.
    public func normalize(title: String, artist: String? = nil) -> NormalizedTitle {
        let raw = clean(title)
        let explicitArtist = artist.map(clean).flatMap { Self.isOnlyDashes($0) ? nil : $0 }
        guard let explicitArtist else {
            let parts = Self.split(raw)
            return NormalizedTitle(title: parts.title, artist: parts.artist, raw: raw)
        }
        var song = Self.isOnlyDashes(raw) ? "" : raw
        let songChars = Array(song)
        for separator in Self.separators {
            let prefix = Array(explicitArtist + separator)
            if songChars.count >= prefix.count,
                String(songChars[..<prefix.count]).lowercased() == String(prefix).lowercased()
            {
                song = String(songChars[prefix.count...]).trimmingSpaces()
                break
            }
        }
        if song.isEmpty || song.lowercased() == explicitArtist.lowercased() {
            return NormalizedTitle(title: explicitArtist, artist: nil, raw: raw)
        }
        return NormalizedTitle(title: song, artist: explicitArtist, raw: raw)
    }

    /// Makes an untrusted string safe and tidy for display:
    /// - C0 controls, DEL and C1 controls are removed; those that are
    ///   whitespace (tab, LF, CR, VT, FF, NEL) become a space instead, so
    ///   "Artist\nTitle" stays two words. NUL is simply removed.
    /// - Invisible formatting that could spoof or break comparisons is
    ///   removed: BOM (U+FEFF), zero-width space (U+200B), bidi embeddings,
    ///   overrides and isolates (U+202A–U+202E, U+2066–U+2069). ZWJ/ZWNJ stay
    ///   (emoji sequences and some scripts need them).
    /// - Every run of Unicode whitespace (including NBSP, U+2028/U+2029)
    ///   becomes one ASCII space; leading/trailing whitespace is trimmed.
    /// - The result is capped at `maxCharacters` grapheme clusters; a longer
    ///   string is cut on a grapheme boundary and ends in "…".
    public func clean(_ text: String) -> String {
        var output = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in CharacterReferences.decode(text).unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = true
            } else if Self.isRemoved(scalar) {
                continue
            } else {
                if pendingSpace, !output.isEmpty { output.append(" ") }
                pendingSpace = false
                output.append(scalar)
            }
        }
        let cleaned = String(output)
        guard cleaned.count > maxCharacters else { return cleaned }
        return String(cleaned.prefix(maxCharacters - 1)).trimmingSpaces() + "…"
    }

    /// Words a source sends for an artist or a title it does not know (compared after
    /// ``placeholderKey(_:)``). The host alone decides "this is not a track": every plugin (history,
    /// scrobbling, notifications, recording) follows the track event's `break` and empty title.
    public static let placeholderWords: Set<String> = ["unknown", "unknown artist", "unknown title", "untitled", "n/a", "-", "--"]

    /// Whether `title` names no track: empty, only dashes, artist and title that are each missing
    /// or a placeholder word ("Unknown - Unknown", "Unknown Artist - Untitled", "N/A"), or one of
    /// `stationNames` (the station's own name as its title). Compared case-insensitively with
    /// whitespace collapsed. A real title with an unknown artist ("Unknown - Time") is a track.
    public func isPlaceholder(_ title: NormalizedTitle, stationNames: [String]) -> Bool {
        guard !title.isEmpty else { return true }
        // The whole text as sent, and as split (an explicit ARTIST tag joined with the title).
        let whole = placeholderKey(title.raw)
        let joined = placeholderKey(title.artist.map { "\($0) - \(title.title)" } ?? title.title)
        let parts = [title.artist, title.title].compactMap { $0 }.map(placeholderKey).filter { !$0.isEmpty }
        if Self.placeholderWords.contains(whole) || (!parts.isEmpty && parts.allSatisfy(Self.placeholderWords.contains)) { return true }
        return stationNames.map(placeholderKey).contains { !$0.isEmpty && ($0 == whole || $0 == joined) }
    }

    /// The form placeholders are compared in: cleaned, lowercased, one space between words.
    public func placeholderKey(_ text: String) -> String {
        clean(text).lowercased().split(separator: " ").joined(separator: " ")
    }

    /// The separators accepted between artist and title, in no priority
    /// order: the earliest occurrence of any of them wins.
    public static let separators = [" - ", " – ", " — "]

    /// Splits a cleaned title on the FIRST " - " / " – " / " — ".
    ///
    /// | input              | artist   | title            |
    /// |--------------------|----------|------------------|
    /// | "A - B"            | "A"      | "B"              |
    /// | "A - B - C"        | "A"      | "B - C"          |
    /// | "A - "  ("A -")    | nil      | "A"   (lone half becomes the title) |
    /// | " - B"  ("- B")    | nil      | "B"              |
    /// | "-", " - ", "", "—"| nil      | ""    (no track) |
    /// | "Jay-Z"            | nil      | "Jay-Z" (no spaces → no split) |
    ///
    /// A string made only of dashes and spaces is "no track". If exactly one
    /// side is non-empty it becomes the title: the listener always sees the
    /// text the station sent, and the UI never has to show an artist with
    /// an empty title.
    public static func split(_ cleaned: String) -> (artist: String?, title: String) {
        if isOnlyDashes(cleaned) { return (nil, "") }
        let chars = Array(cleaned)
        var left = ""
        var right = cleaned
        if let index = firstSeparatorIndex(chars) {
            left = String(chars[..<index])
            right = String(chars[(index + 3)...])
        } else if chars.count >= 2, isDash(chars[0]), chars[1] == " " {
            left = ""
            right = String(chars[2...])
        } else if chars.count >= 2, isDash(chars[chars.count - 1]), chars[chars.count - 2] == " " {
            left = String(chars[..<(chars.count - 2)])
            right = ""
        }
        left = isOnlyDashes(left) ? "" : left.trimmingSpaces()
        right = isOnlyDashes(right) ? "" : right.trimmingSpaces()
        switch (left.isEmpty, right.isEmpty) {
        case (false, false): return (left, right)
        case (false, true): return (nil, left)
        default: return (nil, right)
        }
    }

    private static func firstSeparatorIndex(_ chars: [Character]) -> Int? {
        guard chars.count >= 3 else { return nil }
        for index in 0...(chars.count - 3)
        where chars[index] == " " && isDash(chars[index + 1]) && chars[index + 2] == " " {
            return index
        }
        return nil
    }

    private static func isDash(_ character: Character) -> Bool {
        character == "-" || character == "–" || character == "—"
    }

    private static func isOnlyDashes(_ text: String) -> Bool {
        text.allSatisfy { isDash($0) || $0 == " " }
    }

    private static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200B, 0xFEFF: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

extension String {
    /// Trims ASCII spaces only (cleaned strings contain no other whitespace).
    package func trimmingSpaces() -> String {
        guard let first = firstIndex(where: { $0 != " " }),
            let last = lastIndex(where: { $0 != " " })
        else { return "" }
        return String(self[first...last])
    }
}
