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

/// A null sink's recording dated on CLOCK_MONOTONIC (the clock of the events' `mono_ns`), for tests
/// that compare what oton says with when it is heard. The null sink renders (and its monitor records)
/// only while a stream plays into it: a stream of silence keeps it running from before oton starts,
/// so the monitor's samples follow the clock. Each ``look()`` at how much was recorded bounds the
/// time of sample 0 from above (a look may come late, never early); the smallest bound over many
/// looks dates it within parec's own latency (20 ms).
final class DatedSinkRecording {
    let file: String
    /// When sample 0 was recorded (monotonic seconds); infinity before the first look.
    private(set) var origin = Double.infinity
    private let silence: ManagedProcess

    /// Starts the stream of silence and waits until the monitor records.
    init(pulse: PulseAudioServer, file: String) async throws {
        self.file = file
        silence = ManagedProcess(
            name: "pacat", executable: "/usr/bin/pacat",
            arguments: [
                "--playback", "--raw", "--format=s16le", "--rate=\(PulseAudioServer.rate)", "--channels=2", "--latency-msec=20", "/dev/zero",
            ], environment: pulse.environment)
        try silence.start()
        try await pollUntilTrue(timeout: 30, interval: 0.01, "the null sink running with a stream of silence") {
            HeardSound.count(in: file) >= HeardSound.samples(0.5)
        }
    }

    func stop() { silence.kill() }

    /// One look (call it every few ms while the test waits for what it measures).
    func look() {
        let looked = Self.now()
        let recorded = HeardSound.count(in: file)
        if recorded > 0 { origin = min(origin, looked - HeardSound.seconds(recorded)) }
    }

    /// When sample `index` was heard (monotonic seconds).
    func time(ofSample index: Int) -> Double { origin + HeardSound.seconds(index) }

    /// CLOCK_MONOTONIC in seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
