import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `playing` is said when sound plays (issue 39 §3), measured at a real PulseAudio null sink. The
/// shape is the matrix's live MPEG-TS HLS from ffmpeg, whose audio is dated 0.7 s after the start
/// of its segment: the sink was PLAYING (and `playing` said) 0.7 s before its first sample played.
/// Now the first audio plays as it arrives (as mpv does).
final class PlayingWhenHeardTests: XCTestCase {
    func testPlayingIsSaidWhenTheFirstSoundReachesTheSink() async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let station = try HLSStation(self, shape: .tsFFmpeg, options: ["--segment-seconds", "2"])
        let directory = try TemporaryDirectory(self)
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let file = directory.file("monitor.raw")
        try pulse.record(into: file)
        let sink = try await DatedSinkRecording(pulse: pulse, file: file)
        defer { sink.stop() }
        let events = directory.file("events.jsonl")
        let run = try OtonRun(
            self, ["play", station.url("/live.m3u8"), "--no-tui", "--audio-sink", "pulsesink", "--events", events],
            environment: ["PULSE_SERVER": try XCTUnwrap(pulse.environment["PULSE_SERVER"])])

        var playing: Double?
        let deadline = DatedSinkRecording.now() + 90
        while DatedSinkRecording.now() < deadline {
            sink.look()
            if playing == nil { playing = Self.playingTime(in: events) }
            if let playing, DatedSinkRecording.now() > playing + 3 { break }
            usleep(5000)  // the measurement's sampling period: each look dates sample 0 (above), not a wait
        }
        let said = try XCTUnwrap(playing, "oton said playing: \(run.stderr)")
        let heard = HeardSound(file: file)
        let first = try XCTUnwrap(heard.samples.firstIndex { abs(Int($0)) > 328 }, "sound at the sink (above −40 dBFS)")
        let sound = sink.time(ofSample: first)
        print(String(format: "[measure] first sound at the sink %+.3f s after `playing`", sound - said))
        XCTAssertLessThanOrEqual(sound - said, 0.3, "the first sound reached the sink \(sound - said) s after `playing`")
        XCTAssertGreaterThanOrEqual(sound - said, -1.0, "`playing` came \(said - sound) s after the first sound")
    }

    /// When the first `playing` state event was made (monotonic seconds), from the `--events` file.
    private static func playingTime(in path: String) -> Double? {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.contains("\"state\":\"playing\"") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let nanoseconds = (object["mono_ns"] as? NSNumber)?.int64Value
            else { continue }
            return Double(nanoseconds) / 1e9
        }
        return nil
    }
}
