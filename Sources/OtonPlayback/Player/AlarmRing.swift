import Dispatch
import Logging
import OtonEvents
import OtonMedia
import OtonSupport

/// How a start wakes someone up (`--fade-in`, `--alarm`, a snooze's ring): silence first, the fade
/// to the target once audio plays, and for an alarm the built-in tone when the station has not
/// played within ``WakeUp/toneAfter`` or gave up — so an alarm is never silent.
///
/// The Player carries out what it decides (the volume, the switch to the tone and back); the
/// ring only keeps what a wake-up still owes. `@unchecked Sendable`: confined to the player's
/// queue, where its timer fires too.
package final class AlarmRing: @unchecked Sendable {
    private let clock: any PlayerClock
    private let queue: DispatchQueue
    private let logger: Logger
    /// The fade from silence still to start when audio plays (target volume, length).
    private var pendingFadeIn: (volume: Double, milliseconds: Int)?
    /// The latest wake-up's target and fade, for the tone when it takes over.
    private var wakeTarget: (volume: Double, milliseconds: Int)?
    /// The alarm's station (nil unless an alarm): giving up on it, or its silence, plays the tone.
    package private(set) var alarmStation: Station?
    private var toneTimer: (any PlayerTimer)?
    /// The tone plays (instead of the alarm's station).
    package private(set) var playingTone = false

    /// The tone rises to full volume (or stays at a louder alarm's) over this long past the fade-in.
    package static let toneRise: Duration = .seconds(60)
    package static let toneTopVolume = 1.0

    package init(clock: any PlayerClock, queue: DispatchQueue, logger: Logger) {
        self.clock = clock
        self.queue = queue
        self.logger = logger
    }

    /// Silence, the fade still to come, and for an alarm the tone's deadline: `noAudio` runs on the
    /// queue when it passes (with its length in seconds). Playing is then up to the caller.
    package func prepare(
        _ wakeUp: WakeUp, volume target: Double, current: Station, fader: VolumeFader,
        noAudio: @escaping (_ seconds: Int64) -> Void
    ) {
        fader.cancel()
        cancelToneDeadline()
        let target = OutputVolume.clamped(target)
        wakeTarget = (target, wakeUp.fadeMilliseconds)
        pendingFadeIn = wakeUp.fadeMilliseconds > 0 ? (target, wakeUp.fadeMilliseconds) : nil
        fader.set(wakeUp.fadeMilliseconds > 0 ? 0 : target)
        guard let toneAfter = wakeUp.toneAfter else { return }
        if !playingTone, current.url != PipelineDescription.toneURL { alarmStation = current }
        let seconds = toneAfter.components.seconds
        toneTimer = clock.schedule(after: toneAfter, on: queue) { noAudio(seconds) }
    }

    /// While the tone plays, the alarm's station: where a ring after a snooze goes back to.
    package var stationToReturnTo: Station? { playingTone ? alarmStation : nil }

    /// The ring goes back to the station (or plays on): the tone no longer counts as playing.
    package func toneEnds() {
        playingTone = false
    }

    /// Audio plays: the fade from silence starts; the station made it in time, so no tone.
    package func audioPlays(fader: VolumeFader) {
        if !playingTone { cancelToneDeadline() }
        guard let fadeIn = pendingFadeIn else { return }
        pendingFadeIn = nil
        fader.fade(to: fadeIn.volume, over: fadeIn.milliseconds)
    }

    /// The alarm's station did not play: the station of the built-in tone to switch to (from silence
    /// again), after a line that says why; nil when this is no alarm or the tone already plays.
    package func tone(because reason: String, fader: VolumeFader) -> Station? {
        guard let alarmStation, !playingTone else { return nil }
        cancelToneDeadline()
        playingTone = true
        logger.warning(
            "\(tr("alarm: {station} could not be reached ({reason}): playing the alarm tone instead", ["station": alarmStation.name, "reason": reason]))")
        // From silence again when the alarm fades in; then on up to full volume until someone stops it.
        let target = wakeTarget ?? (fader.volume, 0)
        if target.milliseconds > 0 {
            fader.cancel()
            fader.set(0)
        }
        let top = max(target.volume, Self.toneTopVolume)
        pendingFadeIn = (top, target.milliseconds + Int(Self.toneRise.components.seconds) * 1000)
        return Station(name: tr("alarm tone: {station} could not be reached", ["station": alarmStation.name]), url: PipelineDescription.toneURL)
    }

    package func cancelToneDeadline() {
        toneTimer?.cancel()
        toneTimer = nil
    }
}
