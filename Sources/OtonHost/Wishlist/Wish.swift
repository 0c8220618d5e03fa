import OtonTextFolding
import OtonSupport

/// One entry of the wishlist: a pattern and what it is compared with. Letters compare folded
/// (``TextFolding``: no case, accents or width, in every script); `*` stands for any run of
/// characters (none included) and `?` for exactly one. A pattern matches the whole text.
public struct Wish: Equatable, Sendable {
    public enum Field: String, Sendable, CaseIterable {
        /// "Artist - Title" as one text (`oton wish add "Кино - *"`); also the title as the station sent it.
        case track
        /// The artist alone (`--artist`).
        case artist
        /// The title alone (`--title`).
        case title
    }

    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The longest pattern taken (a title longer than this is not a wish anyone typed).
    public static let maximumLength = 500

    public let pattern: String
    public let field: Field
    private let folded: [Character]

    /// Checks the pattern: not empty, not wildcards alone (it would keep every track), one line, at most 500 characters.
    public init(pattern: String, field: Field) throws(Invalid) {
        let trimmed = pattern.trimmingCharacters(in: .whitespaces)
        let what = field == .track ? tr("the pattern") : "--\(field.rawValue)"
        guard !trimmed.isEmpty else {
            throw Invalid(description: tr("{what} is empty; give a title such as \"Кино - *\", --artist NAME or --title TITLE", ["what": what]))
        }
        guard trimmed.count <= Self.maximumLength else {
            throw Invalid(description: tr("{what} is longer than {maximum} characters; shorten it (* stands for the rest)",
                                          ["what": what, "maximum": String(Self.maximumLength)]))
        }
        // Control characters, and what only steers how text shows: bidi overrides (RLO), zero-width
        // marks, U+2028/2029 line and paragraph separators (issue 39, N18: `wish list` printed them raw).
        guard !TerminalText.hasControlOrInvisible(trimmed) else {
            throw Invalid(description: tr("{what} contains a line break or another control character; give it on one line", ["what": what]))
        }
        guard trimmed.contains(where: { $0 != "*" && $0 != "?" && !$0.isWhitespace && $0 != "-" }) else {
            throw Invalid(description: tr("{what} \"{pattern}\" has no letters, so it would keep every track; name an artist or a title",
                                          ["what": what, "pattern": trimmed]))
        }
        self.pattern = trimmed
        self.field = field
        folded = Array(TextFolding.fold(trimmed))
    }

    public static func == (lhs: Wish, rhs: Wish) -> Bool {
        lhs.field == rhs.field && lhs.folded == rhs.folded
    }

    /// Whether a track with these tags is this wish. `rawTitle` is the title as the station sent it
    /// (for stations that do not say "Artist - Title").
    public func matches(artist: String?, title: String?, rawTitle: String?) -> Bool {
        switch field {
        case .artist:
            return artist.map(matches) ?? false
        case .title:
            return title.map(matches) ?? false
        case .track:
            if let artist, let title, matches("\(artist) - \(title)") { return true }
            if let rawTitle, matches(rawTitle) { return true }
            return artist == nil && title.map(matches) == true
        }
    }

    /// The whole of `text`, folded, against the pattern (`*` any run, `?` one character).
    package func matches(_ text: String) -> Bool {
        Self.wildcardMatch(folded, Array(TextFolding.fold(text)))
    }

    /// Linear-time wildcard matching (the classic two-pointer with backtracking to the last `*`).
    package static func wildcardMatch(_ pattern: [Character], _ text: [Character]) -> Bool {
        var p = 0, t = 0
        var star: Int?, resume = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
                p += 1; t += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p; resume = t; p += 1
            } else if let star {
                p = star + 1; resume += 1; t = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// How the list shows it: `Кино - *`, `artist: Beyoncé`, `title: Bohemian Rhapsody`.
    public var shown: String {
        switch field {
        case .track: pattern
        case .artist: tr("artist: {pattern}", ["pattern": pattern])
        case .title: tr("title: {pattern}", ["pattern": pattern])
        }
    }
}
