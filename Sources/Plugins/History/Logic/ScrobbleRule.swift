import Foundation
import OtonJSON

/// A listen as the scrobbling services receive it.
public struct Listen: Equatable, Sendable {
    public var artist: String
    public var title: String
    /// Unix seconds when the track started.
    public var listenedAt: Int64
    public var secondsListened: Double
    public var durationSeconds: Double?
    public var originURL: String?
    public var station: String?

    public init(
        artist: String, title: String, listenedAt: Int64, secondsListened: Double,
        durationSeconds: Double? = nil, originURL: String? = nil, station: String? = nil
    ) {
        self.artist = artist
        self.title = title
        self.listenedAt = listenedAt
        self.secondsListened = secondsListened
        self.durationSeconds = durationSeconds
        self.originURL = originURL
        self.station = station
    }
}

/// When a play counts as a listen: not a jingle, artist and title known (a
/// placeholder such as "Unknown - Unknown" never arrives as a track: the host
/// decides that), a title someone said rather than one oton guessed, and heard long enough.
/// A title the station's stream, its own status API (`station-api`) or a now-playing provider's
/// rule (`provider:<rule>`, the platform's API the station publishes its playlist through) names
/// is the station's word and is scrobbled; a `recognised` one (matched from the audio, "probably")
/// is a guess and never is. A track of known duration needs half of it or four
/// minutes, whichever is lower; a live track (duration unknown) needs the
/// configured minimum and must have ended by a title change.
public enum ScrobbleRule {
    public static func nowPlaying(_ start: PlayStart) -> Listen? {
        guard !start.isJingle, start.titleSource != "recognised", let artist = start.artist, let title = start.title else { return nil }
        return Listen(
            artist: artist, title: title, listenedAt: start.startedAtMicroseconds / 1_000_000, secondsListened: 0,
            durationSeconds: start.durationSeconds, originURL: start.streamURL, station: start.station)
    }

    public static func listen(for end: PlayEnd, minimumLiveSeconds: Double) -> Listen? {
        guard var listen = nowPlaying(end.start) else { return nil }
        listen.secondsListened = end.secondsListened
        if let duration = end.start.durationSeconds {
            guard end.secondsListened >= min(duration / 2, 240) else { return nil }
        } else {
            guard end.endedByTitleChange, end.secondsListened >= minimumLiveSeconds else { return nil }
        }
        return listen
    }
}

extension Listen {
    /// The listen as the scrobble journal keeps it (the keys oton has always written there).
    public var journalText: String {
        var members: [String: JSONValue] = [
            "artist": .string(artist), "title": .string(title),
            "listenedAt": .number(JSONNumber(listenedAt)), "secondsListened": .number(secondsListened),
        ]
        if let durationSeconds { members["durationSeconds"] = .number(durationSeconds) }
        if let originURL { members["originURL"] = .string(originURL) }
        if let station { members["station"] = .string(station) }
        return JSONValue.object(members).jsonText
    }

    /// A journal entry read back; nil when it is not a listen.
    public init?(journalText text: String) {
        guard let value = try? JSONValue.parse(Data(text.utf8)), let artist = value["artist"]?.stringValue,
            let title = value["title"]?.stringValue, let listenedAt = value["listenedAt"]?.int64Value,
            let seconds = value["secondsListened"]?.numberValue
        else { return nil }
        self.init(
            artist: artist, title: title, listenedAt: listenedAt, secondsListened: seconds,
            durationSeconds: value["durationSeconds"]?.numberValue, originURL: value["originURL"]?.stringValue,
            station: value["station"]?.stringValue)
    }
}
