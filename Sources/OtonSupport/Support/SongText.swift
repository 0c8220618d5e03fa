/// A song as a person reads it, with where its title came from when that was not the stream itself
/// (the track event's `title_source`: `stream`, `station-api`, `provider:<rule>`, `recognised`). One
/// owner for the status line, `ctl status`, the log lines and the window, so a title oton found
/// elsewhere is never shown as if the station had said it. Takes the text form of the source (the
/// window and the control socket carry it so; `TitleSource.wireName` writes it).
public enum SongText {
    /// "Artist – Title", "Artist – Title (from the station's website)", "Artist – Title (from laut.fm)",
    /// "probably Artist – Title (recognised)"; empty without artist and title.
    public static func line(artist: String?, title: String?, source: String?) -> String {
        let song = [artist, title].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " – ")
        guard !song.isEmpty else { return "" }
        guard let source, source != "stream" else { return song }
        if source == "recognised" { return tr("probably {song} (recognised)", ["song": song]) }
        return song + " (" + (note(source: source) ?? "") + ")"
    }

    /// The words for a source other than the stream: "from the station's website", "from laut.fm",
    /// "recognised"; nil for the stream (or no source). An unknown source says only that it was not
    /// the stream.
    public static func note(source: String?) -> String? {
        guard let source, source != "stream" else { return nil }
        switch source {
        case "station-api": return tr("from the station's website")
        case "recognised": return tr("recognised")
        default:
            let prefix = "provider:"
            guard source.hasPrefix(prefix), source.count > prefix.count else { return tr("not from the stream") }
            return tr("from {provider}", ["provider": String(source.dropFirst(prefix.count))])
        }
    }

    /// The title with the hedge a recognised one needs ("probably Title"); other titles as they are.
    public static func title(_ title: String, source: String?) -> String {
        guard !title.isEmpty, source == "recognised" else { return title }
        return tr("probably {title}", ["title": title])
    }
}
