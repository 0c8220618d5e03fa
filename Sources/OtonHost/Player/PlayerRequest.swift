/// What plugins, the control socket and the terminal ask the player to do.
/// Requests only enqueue; results come back as state and volume events.
public enum PlayerRequest: Equatable, Sendable {
    case play
    case pause
    case playPause
    case stop
    case setVolume(Double)
    case fadeVolume(to: Double, milliseconds: Int)
    case quit
    /// Play another station: a new connection (see ``StationChoice``).
    case switchStation(StationChoice)
}

/// Which station a switch goes to.
public enum StationChoice: Equatable, Sendable {
    /// One already looked up (``Player/lookupStation(_:)``); added to the list when it is not in it.
    case station(Station)
    /// A name, 1-based number or URL the player looks up in its ``StationList`` (a plugin's request);
    /// one that names nothing is logged and changes nothing.
    case argument(String)
    /// The next station of the list, wrapping.
    case next
    /// The previous station of the list, wrapping.
    case previous
}

/// Receives requests; implemented by the player. Must not block.
public protocol PlayerRequestSink: Sendable {
    func submit(_ request: PlayerRequest, from source: String)
}
