import Foundation

/// How oton compares what people type with what stations send: without case, accents or width, in
/// every script (Кино = кино = КИНО, Beyoncé = beyonce, Ёлка = елка, ＡＢＣ = abc). One owner for both
/// the history search (HistoryLogic's SearchFolding) and the wishlist (the host's WishPattern), so
/// a wish and a search find the same tracks.
public enum TextFolding {
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
