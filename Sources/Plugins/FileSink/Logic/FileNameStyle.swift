/// Which characters a recorded file's name may keep.
///
/// `portable` (the default) gives names that FAT/exFAT sticks, SMB shares and Windows accept:
/// `: ? * " < > | \` become their full-width look-alikes (`：？＊＂＜＞｜＼`, as rclone and
/// OneDrive clients write them), so "AC/DC: Live?" stays readable; trailing dots and spaces of
/// every folder and file name are removed; a name that DOS reserves (CON, PRN, AUX, NUL,
/// COM1–COM9, LPT1–LPT9, with any extension) gets a `_` after it. `posix` keeps every character
/// Linux allows (only `/` and control characters are replaced, in both styles).
public enum FileNameStyle: String, Sendable, CaseIterable {
    case portable
    case posix

    /// The look-alike of each character FAT, exFAT and SMB refuse.
    static let lookAlikes: [Unicode.Scalar: Unicode.Scalar] = [
        ":": "\u{FF1A}", "?": "\u{FF1F}", "*": "\u{FF0A}", "\"": "\u{FF02}",
        "<": "\u{FF1C}", ">": "\u{FF1E}", "|": "\u{FF5C}", "\\": "\u{FF3C}",
    ]

    /// Names DOS reserves for devices, whatever the extension.
    static let reservedStems: Set<String> = Set(["CON", "PRN", "AUX", "NUL"]
        + (1 ... 9).map { "COM\($0)" } + (1 ... 9).map { "LPT\($0)" })

    /// One folder or file name (no `/`, already free of control characters) in this style.
    func apply(toComponent component: String) -> String {
        guard self == .portable else { return component }
        var scalars = String.UnicodeScalarView(component.unicodeScalars.map { Self.lookAlikes[$0] ?? $0 })
        while let last = scalars.last, last == "." || last.properties.isWhitespace { scalars.removeLast() }
        var text = String(scalars)
        let stem = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        if Self.reservedStems.contains(stem.trimmingSpaces.uppercased()) {
            text = stem + "_" + text.dropFirst(stem.count)
        }
        return text
    }
}
