import OtonTextFolding

/// How `history --search` compares text: ``TextFolding`` (without case and without accents, in every
/// script; the wishlist folds the same way). SQLite's LIKE folds ASCII only, so each play stores this
/// folded form of its artist and titles, and a search is folded the same way.
public enum SearchFolding {
    public static func fold(_ text: String) -> String {
        TextFolding.fold(text)
    }

    /// The stored search text of a play: artist, title and the title as the station sent it, folded.
    public static func searchText(artist: String?, title: String?, rawTitle: String?) -> String {
        fold([artist, title, rawTitle].compactMap { $0 }.joined(separator: "\n"))
    }
}
