import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Pause and resume as a listener hears them (issue 39 §4): a lab MP3 sine played by
/// `oton play --audio-sink pulsesink` into a real PulseAudio null sink, its monitor recorded with
/// parec. A pause fades out over a few ms instead of cutting the wave (a click); a resume fades in
/// instead of starting with a step, and at the level it paused at, not louder while the leveller
/// settles again.
final class PauseRampHeardTests: XCTestCase {
    func testPauseAndResumeRampInsteadOfCuttingAndResumeAtTheLevelItPausedAt() async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/tone.mp3", format: .mp3, initialTitle: "Artist - Tone", stationName: "Tone FM", amplitude: 0.3)
        let directory = try TemporaryDirectory(self)
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let file = directory.file("monitor.raw")
        try pulse.record(into: file)
        let recording = SinkRecording(file: file)
        let plugins = """
            {"stations": [{"name": "Tone FM", "url": "\(server.url(mount: "/tone.mp3"))"}], "plugins": []}
            """
        let oton = try OtonProcess(
            self, arguments: ["play", "Tone FM", "--audio-sink", "pulsesink", "--no-tui"],
            plugins: plugins, environment: ["PULSE_SERVER": pulse.environment["PULSE_SERVER"]])
        _ = try oton.connect(timeout: 30)
        let started = try recording.waitUntilPlaying(oton)
        _ = try recording.recorded(from: started, seconds: 3)

        let pausedAt = HeardSound.count(in: file)
        XCTAssertEqual(try oton.connect().send(["pause"])["ok"]?.boolValue, true)
        // From half a second before the request on: parec's file may lag what the server plays.
        let pause = try recording.recorded(from: pausedAt - HeardSound.samples(0.5), seconds: 2)
        let end = try XCTUnwrap(Self.lastSound(in: pause), "the sound stopped after the pause: \(oton.directory.read("stderr.log"))")
        let steady = pause.peak(max(0, end - HeardSound.samples(0.3))..<end - HeardSound.samples(0.05))
        let last = pause.peak(end - HeardSound.samples(0.001)..<end + 1)
        XCTAssertGreaterThan(steady, 0.05, "sound before the pause")

        let resumedAt = HeardSound.count(in: file)
        XCTAssertEqual(try oton.connect().send(["play"])["ok"]?.boolValue, true)
        _ = try recording.waitUntilPlaying(oton)
        let deadline = Date().addingTimeInterval(60)
        var resume = HeardSound(samples: [])
        var begin: Int?
        while Date() < deadline {
            resume = HeardSound(samples: Array(HeardSound(file: file).samples.dropFirst(resumedAt)))
            if let first = resume.samples.firstIndex(where: { abs(Int($0)) > 65 }), resume.samples.count > first + HeardSound.samples(2) {
                begin = first
                break
            }
            usleep(100_000)
        }
        let first = try XCTUnwrap(begin, "sound again after the resume")
        let resumedSteady = resume.peak(first + HeardSound.samples(1.5)..<first + HeardSound.samples(2))
        let onset = resume.peak(first..<first + HeardSound.samples(0.001))
        let burst = resume.peak(first..<first + HeardSound.samples(0.4))
        print(
            String(
                format:
                    "[measure] pause: last 1 ms at %.2f of the level before (%.3f); resume: first 1 ms at %.2f, first 400 ms peak at %.2f of the level after (%.3f)",
                last / steady, steady, onset / resumedSteady, burst / resumedSteady, resumedSteady))
        XCTAssertLessThan(last, steady * 0.5, "the pause fades out, it does not cut the wave at full level")
        XCTAssertLessThan(onset, resumedSteady * 0.5, "the resume fades in, it does not start with a step")
        XCTAssertLessThan(burst, resumedSteady * 1.2, "the resume is not louder than what follows while the leveller settles")
        XCTAssertEqual(resumedSteady, steady, accuracy: steady * 0.12, "it resumes at the level it paused at")
    }

    /// The index one past the last sample above the silence threshold that a silence of 100 ms or
    /// more follows (the end of the sound), nil if the sound never stopped.
    private static func lastSound(in heard: HeardSound) -> Int? {
        let silence = HeardSound.samples(0.1)
        var lastLoud: Int?
        for (index, sample) in heard.samples.enumerated() {
            if abs(Int(sample)) > 65 {
                lastLoud = index
            } else if let loud = lastLoud, index - loud >= silence {
                return loud + 1
            }
        }
        return nil
    }
}
