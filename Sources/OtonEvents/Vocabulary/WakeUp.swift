/// How a start wakes someone up (`oton play --fade-in D`, `--alarm`, and each ring after a snooze):
/// the volume starts at silence and rises to the target through the player's fader once audio plays;
/// for an alarm, when the station has not played within `toneAfter` (or gives up sooner), the
/// built-in tone plays instead, so an alarm is never silent.
public struct WakeUp: Equatable, Sendable {
    /// The fade from 0 to the target volume, started when the station (or the tone) plays; 0: the volume at once.
    public var fadeMilliseconds: Int
    /// An alarm: how long the station has to start playing before the tone takes over. nil: no tone.
    public var toneAfter: Duration?

    /// An alarm waits this long for its station.
    public static let alarmToneAfter: Duration = .seconds(20)

    public init(fadeMilliseconds: Int, toneAfter: Duration?) {
        self.fadeMilliseconds = fadeMilliseconds
        self.toneAfter = toneAfter
    }
}
