/// When the host asks a station's status API, and which answer it uses.
///
/// The rule (also in the header, beside `sequence`): the stream's own title
/// names the track being heard. A status answer fills only what the stream
/// lacks (artwork, and the title when the stream sends none), and only once
/// its title matches the heard title: during Icecast's burst the API is
/// ahead of the audio, later it lags behind. So a status answer never starts
/// or ends a track while the stream has titles.
///
/// Schedule: a new heard title starts a round: ask at once, then after 2, 4
/// and 6 s while the answer names another title; then give up until the next
/// title. A new connection asks after `connectGrace` seconds, so that a stream
/// that has titles says its first one before any status answer is believed;
/// a stream without titles is then asked every `idleInterval` seconds and
/// every answer is used. Pure: the player runs the timers and the transfers.
public struct StationStatusLookup: Sendable {
    public enum Step: Equatable, Sendable {
        /// Ask (again) after this many seconds, for `round`.
        case ask(afterSeconds: Double, round: UInt64)
        /// The status describes the heard track (or the stream has no titles): use it.
        case use(StationStatus)
        /// No answer named the heard title in time; nothing more this round.
        case gaveUp(round: UInt64, lastTitle: String?)
        /// The answer is for an older round (a newer title arrived meanwhile): drop it.
        case stale
    }

    public struct Heard: Equatable, Sendable {
        public var title: String?
        public var artist: String?
        public var rawTitle: String?

        public init(title: String?, artist: String?, rawTitle: String?) {
            self.title = title
            self.artist = artist
            self.rawTitle = rawTitle
        }
    }

    public var retryDelays: [Double]
    public var idleInterval: Double
    public var connectGrace: Double
    public private(set) var round: UInt64 = 0
    private var attempt = 0
    private var heard: Heard?

    public init(retryDelays: [Double] = [2, 4, 6], idleInterval: Double = 30, connectGrace: Double = 2) {
        self.retryDelays = retryDelays
        self.idleInterval = idleInterval
        self.connectGrace = connectGrace
    }

    /// A new connection: forget the heard track; ask once the stream had time to name it.
    public mutating func connected() -> Step {
        heard = nil
        _ = startRound()
        return .ask(afterSeconds: connectGrace, round: round)
    }

    /// The heard track changed (a new stream title): ask at once for it.
    public mutating func heardTrackChanged(_ track: Heard) -> Step {
        heard = track.title == nil && track.rawTitle == nil ? nil : track
        return startRound()
    }

    /// An answer arrived for `round`.
    public mutating func answered(_ status: StationStatus, round answerRound: UInt64) -> [Step] {
        guard answerRound == round else { return [.stale] }
        guard let heard else { return [.use(status), .ask(afterSeconds: idleInterval, round: round)] }
        if let title = status.title,
            StatusTitleMatcher.matches(statusTitle: title, title: heard.title, artist: heard.artist, rawTitle: heard.rawTitle)
        {
            return [.use(status)]
        }
        return [next(lastTitle: status.title)]
    }

    /// The request for `round` failed (transport, HTTP status, unparseable body).
    public mutating func failed(round answerRound: UInt64) -> Step {
        guard answerRound == round else { return .stale }
        if heard == nil { return .ask(afterSeconds: idleInterval, round: round) }
        return next(lastTitle: nil)
    }

    private mutating func startRound() -> Step {
        round &+= 1
        attempt = 0
        return .ask(afterSeconds: 0, round: round)
    }

    private mutating func next(lastTitle: String?) -> Step {
        guard attempt < retryDelays.count else { return .gaveUp(round: round, lastTitle: lastTitle) }
        attempt += 1
        return .ask(afterSeconds: retryDelays[attempt - 1], round: round)
    }
}
