import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport

/// What the PulseAudio null sink's monitor recorded (parec's file), read in stretches after the
/// state a check needs: the helpers the heard tests (levelling, effects) share.
struct SinkRecording {
    let file: String

    /// Waits until the oton at `oton` says it plays (`station`, when given); returns where the recording stood then.
    func waitUntilPlaying(_ oton: OtonProcess, station: String? = nil, timeout: TimeInterval = 60) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // A connection per request: the control socket closes one that is quiet for 15 s.
            let data = try oton.connect().send(["status"])["data"]
            if station == nil || data?["station"]?.stringValue == station, data?["state"]?.stringValue == "playing" { return HeardSound.count(in: file) }
            usleep(100_000)
        }
        throw FixtureError("\(station ?? "the station") did not play within \(timeout) s")
    }

    /// `seconds` of recording from sample `start` on, waited for (a loaded machine records slowly).
    func recorded(from start: Int, seconds: Double, timeout: TimeInterval = 90) throws -> HeardSound {
        let end = start + HeardSound.samples(seconds)
        let deadline = Date().addingTimeInterval(timeout)
        while HeardSound.count(in: file) < end, Date() < deadline { usleep(100_000) }
        let heard = HeardSound(file: file)
        guard heard.samples.count >= end else { throw FixtureError("the sink recorded \(heard.samples.count - start) of \(end - start) samples") }
        return HeardSound(samples: Array(heard.samples[start..<end]))
    }

    /// The level of `seconds` recorded from now on (``HeardSound/steadyLevel(_:)``: what a steady tone
    /// was played at, though the sound server dropped a stretch), after `settle` seconds (what was asked
    /// before reaches the sink through its buffer first).
    func levelFromNow(settle: Double = 1, seconds: Double = 2) throws -> Double {
        let heard = try recorded(from: HeardSound.count(in: file), seconds: settle + seconds)
        return heard.steadyLevel(HeardSound.samples(settle)..<heard.samples.count)
    }
}

func decibels(_ fraction: Double) -> Double { 20 * log10(max(fraction, 1e-9)) }
