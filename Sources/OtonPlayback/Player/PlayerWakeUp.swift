import OtonEvents
import OtonStations
import OtonSupport

/// Waking up (`--fade-in`, `--alarm`, a snooze's ring), on the player's queue: the ring's fade from
/// silence, its tone when the station does not play, and the way back to the alarm's station.
extension Player {
    func prepare(_ wakeUp: WakeUp, volume target: Double) {
        ring.prepare(wakeUp, volume: target, current: current, fader: fader) { [weak self] seconds in
            guard let self, !finished else { return }
            if case .playing = machine.state, !ring.playingTone { return }
            playTone(because: "no audio within \(seconds) s")
        }
    }

    /// A ring after a snooze: back to the alarm's station (from the tone too), from silence.
    func wake(_ wakeUp: WakeUp, volume target: Double) {
        guard !finished else { return }
        let back = ring.stationToReturnTo
        prepare(wakeUp, volume: target)  // while the tone still counts as playing, so the alarm's station stays the one to return to
        ring.toneEnds()
        if let back {
            switchTo(back)
        } else if case .playing = machine.state {
            ring.audioPlays(fader: fader)
        } else {
            handle(.play)
        }
    }

    /// The alarm's station did not play: the built-in tone does, from silence again, and says why.
    func playTone(because reason: String) {
        if let tone = ring.tone(because: reason, fader: fader) { switchTo(tone) }
    }
}
