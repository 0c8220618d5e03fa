/// Turns the looks at a titleless station into what the host is told: a new suggestion when a
/// look recognises a song other than the one suggested, a withdrawal when the suggested song has
/// not been recognised for `missesBeforeWithdrawal` looks in a row (it ended, or was a mistake).
public struct SuggestionTracker: Sendable {
    public enum Action: Sendable, Equatable {
        case suggest(Int64)
        case withdraw
    }

    public static let missesBeforeWithdrawal = 3

    public private(set) var suggested: Int64?
    private var misses = 0

    public init() {}

    /// The outcome of one look: the song recognised, or nil.
    public mutating func looked(_ song: Int64?) -> Action? {
        guard let song else {
            guard suggested != nil else { return nil }
            misses += 1
            guard misses >= Self.missesBeforeWithdrawal else { return nil }
            reset()
            return .withdraw
        }
        misses = 0
        guard song != suggested else { return nil }
        suggested = song
        return .suggest(song)
    }

    /// Another station or connection: nothing is suggested any more.
    public mutating func reset() {
        suggested = nil
        misses = 0
    }
}
