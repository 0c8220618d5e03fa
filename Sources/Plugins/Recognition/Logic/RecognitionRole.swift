import OtonPluginKit
import PluginAPI

/// A song with a title, as the index keeps it.
public struct TitledSong: Sendable, Equatable {
    public var artist: String?
    public var title: String
    public var station: String?

    public init(artist: String?, title: String, station: String?) {
        self.artist = artist
        self.title = title
        self.station = station
    }
}

/// What the plugin does with the sound while a track event stands.
public enum RecognitionRole: Sendable, Equatable {
    /// The stream (or the station's API) names the song: fingerprint it into the index.
    case index(TitledSong)
    /// Nothing names the song (or only a recognition did): look every 10 s.
    case listen
    /// A break (ads, a jingle): neither.
    case pause

    /// The title source (OTON_FIELD_TITLE_SOURCE) of a title this plugin suggested.
    public static let recognisedSource = "recognised"

    /// The role for a track event's fields. A title this plugin suggested is not a title to learn
    /// from (it would teach the index its own guesses), so its station keeps being listened to.
    public static func of(_ fields: [String: String]) -> RecognitionRole {
        guard let track = TrackFields(fields: fields) else { return .listen }
        if track.isBreak { return .pause }
        guard let title = track.title ?? track.rawTitle else { return .listen }
        if track.titleSource == recognisedSource { return .listen }
        return .index(TitledSong(artist: track.artist, title: title, station: track.station))
    }
}

/// How much of one titled song is fingerprinted: at least `minimumSeconds` to be worth keeping
/// (a title heard for a moment is often the wrong one), at most `maximumSeconds`.
public struct CaptureSpan: Sendable, Equatable {
    public static let minimumSeconds = 20

    public let rate: Int
    public let maximumSeconds: Int
    public private(set) var samples = 0

    public init(rate: Int, maximumSeconds: Int) {
        self.rate = rate
        self.maximumSeconds = maximumSeconds
    }

    /// How many of `count` new samples to fingerprint (0 once the span is full).
    public mutating func take(_ count: Int) -> Int {
        let taken = max(0, min(count, rate * maximumSeconds - samples))
        samples += taken
        return taken
    }

    public var isFull: Bool { samples >= rate * maximumSeconds }
    public var isWorthKeeping: Bool { samples >= rate * Self.minimumSeconds }
}
