/// Text measured as a terminal shows it: East Asian wide and fullwidth
/// characters (and most emoji) take two columns, combining marks and
/// zero-width characters none, everything else one. A small table of ranges,
/// no ICU; good enough to keep a status line inside its row.
public enum TerminalText {
    /// Whether `text` holds what a terminal would act on or hide rather than show: control characters
    /// (escapes), format characters (bidi overrides such as RLO, zero-width marks) and the U+2028/2029
    /// line and paragraph separators. Typed input that carries one is refused, not echoed.
    public static func hasControlOrInvisible(_ text: String) -> Bool {
        text.unicodeScalars.contains { [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) }
    }

    /// Columns `text` takes on a terminal.
    public static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    public static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 || value == 0x200B || value == 0x200C || value == 0x200D || value == 0xFEFF { return 0 }
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        for range in wideRanges where range.contains(value) { return 2 }
        return 1
    }

    /// `text` cut to at most `columns` columns, ending in "…" when it was cut.
    public static func truncated(_ text: String, toColumns columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard width(text) > columns else { return text }
        var out = ""
        var used = 0
        for character in text {
            let characterWidth = width(String(character))
            if used + characterWidth > columns - 1 { break }
            out.append(character)
            used += characterWidth
        }
        return out + "…"
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
        0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
    ]
}
