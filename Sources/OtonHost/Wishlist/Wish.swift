import OtonSupport
import OtonTextFolding

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
    private let compiled: WildcardPattern

    /// Checks the pattern: not empty, not wildcards alone (it would keep every track), one line, at most 500 characters.
    public init(pattern: String, field: Field) throws(Invalid) {
        let trimmed = pattern.trimmingCharacters(in: .whitespaces)
        let what = field == .track ? tr("the pattern") : "--\(field.rawValue)"
        guard !trimmed.isEmpty else {
            throw Invalid(description: tr("{what} is empty; give a title such as \"Кино - *\", --artist NAME or --title TITLE", ["what": what]))
        }
        guard trimmed.count <= Self.maximumLength else {
            throw Invalid(
                description: tr(
                    "{what} is longer than {maximum} characters; shorten it (* stands for the rest)",
                    ["what": what, "maximum": String(Self.maximumLength)]))
        }
        // Control characters, and what only steers how text shows: bidi overrides (RLO), zero-width
        // marks, U+2028/2029 line and paragraph separators (issue 39, N18: `wish list` printed them raw).
        guard !TerminalText.hasControlOrInvisible(trimmed) else {
            throw Invalid(description: tr("{what} contains a line break or another control character; give it on one line", ["what": what]))
        }
        guard trimmed.contains(where: { $0 != "*" && $0 != "?" && !$0.isWhitespace && $0 != "-" }) else {
            throw Invalid(
                description: tr(
                    "{what} \"{pattern}\" has no letters, so it would keep every track; name an artist or a title",
                    ["what": what, "pattern": trimmed]))
        }
        self.pattern = trimmed
        self.field = field
        folded = Array(TextFolding.fold(trimmed))
        compiled = WildcardPattern(folded)
    }

    public static func == (lhs: Wish, rhs: Wish) -> Bool {
        lhs.field == rhs.field && lhs.folded == rhs.folded
    }

    /// Whether a track with these tags is this wish. `rawTitle` is the title as the station sent it
    /// (for stations that do not say "Artist - Title").
    public func matches(artist: String?, title: String?, rawTitle: String?) -> Bool {
        var budget = Int.max
        return matches(FoldedTrack(artist: artist, title: title, rawTitle: rawTitle), budget: &budget) == true
    }

    /// The same against texts folded once for the whole list; nil when `budget` (comparison steps,
    /// shared by every wish tried on one title) ran out before it was decided.
    package func matches(_ track: FoldedTrack, budget: inout Int) -> Bool? {
        switch field {
        case .artist:
            return track.artist.map { compiled.matches($0, budget: &budget) } ?? false
        case .title:
            return track.title.map { compiled.matches($0, budget: &budget) } ?? false
        case .track:
            if let both = track.artistAndTitle {
                guard let found = compiled.matches(both, budget: &budget) else { return nil }
                if found { return true }
            }
            if let raw = track.rawTitle {
                guard let found = compiled.matches(raw, budget: &budget) else { return nil }
                if found { return true }
            }
            guard track.artist == nil, let title = track.title else { return false }
            return compiled.matches(title, budget: &budget)
        }
    }

    /// The whole of `text`, folded, against the pattern (`*` any run, `?` one character).
    package func matches(_ text: String) -> Bool {
        var budget = Int.max
        return compiled.matches(Array(TextFolding.fold(text)), budget: &budget) == true
    }

    /// Wildcard matching (see ``WildcardPattern``).
    package static func wildcardMatch(_ pattern: [Character], _ text: [Character]) -> Bool {
        var budget = Int.max
        return WildcardPattern(pattern).matches(text, budget: &budget) == true
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

/// A track's texts folded once, for every wish of the list to be compared with.
package struct FoldedTrack: Sendable {
    package let artist: [Character]?
    package let title: [Character]?
    package let rawTitle: [Character]?
    /// "artist - title", when both are known.
    package let artistAndTitle: [Character]?

    package init(artist: String?, title: String?, rawTitle: String?) {
        let fold = { (text: String) in Array(TextFolding.fold(text)) }
        self.artist = artist.map(fold)
        self.title = title.map(fold)
        self.rawTitle = rawTitle.map(fold)
        artistAndTitle = artist.flatMap { artist in title.map { fold("\(artist) - \($0)") } }
    }
}

/// A pattern split at its stars: the first piece must begin the text, the last end it, and those
/// between are found in order, each at its leftmost place (which is never wrong: taking a later place
/// leaves less text for the rest). A piece without `?` is found with Knuth–Morris–Pratt, so matching
/// is linear in the text whatever the pattern (issue 39, N6: the two-pointer matcher with
/// backtracking it replaces cost O(pattern × text), 3.6 s of CPU per title with a pathological
/// 4 MiB list). A piece with `?` is compared at each place (at most its length per place); every
/// comparison is counted against the caller's budget.
package struct WildcardPattern: Sendable {
    private struct Piece: Sendable {
        let characters: [Character]
        /// KMP's failure table, nil when the piece has a `?`.
        let failure: [Int]?
    }

    private let pieces: [Piece]
    /// No star at all: the pattern is one piece that is the whole text.
    private let starless: Bool
    private let leadingStar: Bool
    private let trailingStar: Bool

    package init(_ pattern: [Character]) {
        starless = !pattern.contains("*")
        leadingStar = pattern.first == "*"
        trailingStar = pattern.last == "*"
        pieces = pattern.split(separator: "*", omittingEmptySubsequences: true).map { slice in
            let characters = Array(slice)
            return Piece(characters: characters, failure: characters.contains("?") ? nil : Self.failureTable(characters))
        }
    }

    private static func failureTable(_ piece: [Character]) -> [Int] {
        var table = [Int](repeating: 0, count: piece.count)
        var length = 0
        var index = 1
        while index < piece.count {
            if piece[index] == piece[length] {
                length += 1
                table[index] = length
                index += 1
            } else if length > 0 {
                length = table[length - 1]
            } else {
                index += 1
            }
        }
        return table
    }

    /// nil when the budget ran out first.
    package func matches(_ text: [Character], budget: inout Int) -> Bool? {
        if starless {
            let piece = pieces.first?.characters ?? []
            guard piece.count == text.count else { return false }
            return equal(piece, text, at: 0, budget: &budget)
        }
        var start = 0
        var end = text.count
        var middle = pieces[...]
        if !leadingStar, let first = middle.first {
            guard first.characters.count <= end, let same = equal(first.characters, text, at: 0, budget: &budget) else { return nil }
            guard same else { return false }
            start = first.characters.count
            middle = middle.dropFirst()
        }
        if !trailingStar, let last = middle.last {
            guard last.characters.count <= end - start else { return false }
            guard let same = equal(last.characters, text, at: end - last.characters.count, budget: &budget) else { return nil }
            guard same else { return false }
            end -= last.characters.count
            middle = middle.dropLast()
        }
        for piece in middle {
            guard let found = find(piece, in: text, from: start, to: end, budget: &budget) else { return nil }
            guard let at = found else { return false }
            start = at + piece.characters.count
        }
        return true
    }

    /// Whether `piece` is `text` at `offset` (`?` is any character).
    private func equal(_ piece: [Character], _ text: [Character], at offset: Int, budget: inout Int) -> Bool? {
        guard budget >= piece.count else { budget = 0; return nil }
        budget -= piece.count
        for index in piece.indices where piece[index] != "?" && piece[index] != text[offset + index] { return false }
        return true
    }

    /// The leftmost place of `piece` in text[from ..< to]: .some(nil) when it is not there, nil when the budget ran out.
    private func find(_ piece: Piece, in text: [Character], from: Int, to: Int, budget: inout Int) -> Int?? {
        let needle = piece.characters
        guard needle.count <= to - from else { return .some(nil) }
        if let failure = piece.failure {
            var matched = 0
            for index in from..<to {
                // Each character is looked at once, and the table walks back at most as far as it came.
                budget -= 2
                guard budget >= 0 else { budget = 0; return nil }
                while matched > 0 && text[index] != needle[matched] { matched = failure[matched - 1] }
                if text[index] == needle[matched] { matched += 1 }
                if matched == needle.count { return .some(index - needle.count + 1) }
            }
            return .some(nil)
        }
        for at in from...(to - needle.count) {
            guard let same = equal(needle, text, at: at, budget: &budget) else { return nil }
            if same { return .some(at) }
        }
        return .some(nil)
    }
}
