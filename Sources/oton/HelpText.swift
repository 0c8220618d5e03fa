import OtonHost

/// The longer `--help` texts (ArgumentParser's `discussion`) in the user's language: each paragraph is
/// its own `tr("…")` message (ArgumentParser wraps it to the terminal), examples stay as typed.
enum HelpText {
    /// The paragraphs, a blank line between them.
    static func paragraphs(_ paragraphs: String...) -> String {
        paragraphs.joined(separator: "\n\n")
    }

    /// "Examples:" and the command lines, each indented by two spaces.
    static func examples(_ lines: String...) -> String {
        ([tr("Examples:")] + lines.map { "  " + $0 }).joined(separator: "\n")
    }
}
