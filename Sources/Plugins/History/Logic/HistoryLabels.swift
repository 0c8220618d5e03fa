/// The words of `oton history`'s tables in the reader's language. The plugin has no message
/// catalogue of its own: the CLI, which has, passes each translated word as `--label ENGLISH=TEXT`
/// (see ``HistoryQuery``), and a word without one stays English. JSON and CSV never change.
public struct HistoryLabels: Equatable, Sendable {
    /// Every word a table uses, in English (the keys).
    public static let english = [
        "STARTED", "HEARD", "STATION", "ARTIST", "TITLE", "PLAYS", "HOURS", "TRACKS", "No tracks in the history match.",
        "[jingle]", "[skipped]", "[station's website]", "[recognised]", "Top artists", "Top tracks", "Hours listened per station", "(none)",
    ]

    public var translations: [String: String]

    public init(_ translations: [String: String] = [:]) {
        self.translations = translations
    }

    public func callAsFunction(_ english: String) -> String { translations[english] ?? english }
}
