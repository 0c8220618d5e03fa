/// What plugins, the control socket and the terminal ask the player to do.
/// Requests only enqueue; results come back as state and volume events.
public enum PlayerRequest: Equatable, Sendable {
    case play
    case pause
    case playPause
    case stop
    case setVolume(Double)
    /// Up or down from the player's own volume, in whole percent, within 0–150 (`ctl volume +5`, the + and - keys):
    /// applied on the player's queue, so two changes never read the same old value.
    case changeVolume(byPercent: Int)
    case fadeVolume(to: Double, milliseconds: Int)
    /// Play another station: a new connection (the current track ends), even from an error.
    case switchStation(Station)
    /// A station of ``Player/stationList`` by name, number or URL (plugins' OTON_REQUEST_SWITCH_STATION).
    case switchStationNamed(String)
    /// The next (1) or previous (-1) station of the list, wrapping.
    case stepStation(Int)
    /// Wake up to the alarm's station (the ring after a snooze): from silence to `volume` (see ``WakeUp``).
    case wakeUp(WakeUp, volume: Double)
    /// Loudness levelling on or off (`ctl level on|off`, the web remote); docs/levelling.md.
    case setLevelling(Bool)
    /// Timeshift (docs/timeshift.md): move what is heard by this many milliseconds (negative: back;
    /// `ctl seek -30s`, the ← and → keys, MPRIS Seek).
    case seek(byMilliseconds: Int)
    /// Timeshift: play from this many milliseconds behind live (0: live; `ctl live`, MPRIS SetPosition).
    case seekBehindLive(milliseconds: Int)
    /// One effect of the chain changed (`ctl effect`: a parameter, a preset, the bypass), matched by
    /// name; applied live without a gap, and kept for the next connections. docs/effects.md.
    case setEffect(EffectSettings)
    case quit
}

/// Receives requests; implemented by the player. Must not block.
public protocol PlayerRequestSink: Sendable {
    func submit(_ request: PlayerRequest, from source: String)
}
