import Foundation

/// Text as `history --search` compares it: case- and accent-insensitive in every script, without
/// ICU. Compatibility decomposition (NFKD: "é" → "e" + accent, "ﬁ" → "fi", full-width → plain),
/// combining marks removed (so "ё" matches "е" and "é" matches "e"), then lower case (Swift's own
/// Unicode tables, not SQLite's ASCII-only LIKE), with the two letters whose lower case is not their
/// fold made equal: "ß" = "ss", final "ς" = "σ". Кино, кино and КИНО fold to the same text, so do
/// Beyoncé and beyonce.
public enum SearchFolding {
    public static func fold(_ text: String) -> String {
        let decomposed = text.decomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: continue
            default: scalars.append(scalar)
            }
        }
        var folded = String(scalars).lowercased()
        if folded.contains("ß") { folded = folded.replacingOccurrences(of: "ß", with: "ss") }
        if folded.contains("ς") { folded = folded.replacingOccurrences(of: "ς", with: "σ") }
        return folded
    }

    /// Whether `text` contains `search`, both folded.
    public static func matches(_ text: String, _ search: String) -> Bool {
        fold(text).contains(fold(search))
    }
}
