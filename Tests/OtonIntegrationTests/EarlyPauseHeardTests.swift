import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// A pause in the first half second, then play (issue 54 §3): the sound comes back at once, not after
/// silence under "playing" as long as the pause lasted. Heard at a real PulseAudio null sink, with
/// timeshift and levelling on (the defaults), from a real Icecast.
final class EarlyPauseHeardTests: XCTestCase {
    /// Paused as soon as the control socket answers: before the first sound, while the pipelines preroll.
    func testAPauseBeforeTheFirstSoundThenPlayIsHeardAtOnce() async throws {
        try await checkEarlyPause(when: .socketAnswers)
    }

    /// Paused the moment the player says it plays: the playback pipeline is still on its way to PLAYING.
    func testAPauseAtTheFirstPlayingThenPlayIsHeardAtOnce() async throws {
        try await checkEarlyPause(when: .firstPlaying)
    }

    /// Paused half a second after the player says it plays: the first sound is on its way to the sink.
    func testAPauseHalfASecondAfterPlayingThenPlayIsHeardAtOnce() async throws {
        try await checkEarlyPause(when: .halfASecondAfterPlaying)
    }

    private enum Moment { case socketAnswers, firstPlaying, halfASecondAfterPlaying }

    private func checkEarlyPause(when moment: Moment) async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/tone.mp3", format: .mp3, initialTitle: "Artist - Tone", stationName: "Tone FM", amplitude: 0.3)
        let directory = try TemporaryDirectory(self)
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let file = directory.file("monitor.raw")
        try pulse.record(into: file)
        let plugins = """
            {"stations": [{"name": "Tone FM", "url": "\(server.url(mount: "/tone.mp3"))"}], "plugins": []}
            """
        let oton = try OtonProcess(
            self, arguments: ["play", "Tone FM", "--audio-sink", "pulsesink", "--no-tui"],
            plugins: plugins, environment: ["PULSE_SERVER": pulse.environment["PULSE_SERVER"]])
        let control = try oton.connect(timeout: 30)
        if moment != .socketAnswers {
            let deadline = Date().addingTimeInterval(60)
            while try control.send(["status"])["data"]?["state"]?.stringValue != "playing" {
                guard Date() < deadline else { throw FixtureError("never playing: \(oton.directory.read("stderr.log"))") }
                usleep(10_000)
            }
            if moment == .halfASecondAfterPlaying { usleep(450_000) }
        }
        XCTAssertEqual(try control.send(["pause"])["ok"]?.boolValue, true)
        let pausedAt = HeardSound.count(in: file)
        // The pause lasts 6 s of what the sink records (it records silence too, in real time).
        let pauseSeconds = 6.0
        let paused = try SinkRecording(file: file).recorded(from: pausedAt, seconds: pauseSeconds)
        // The pause is heard: silence from 1.5 s after the request on (what was already in the sink's buffer plays out first).
        let heardWhilePaused = paused.peak(HeardSound.samples(1.5)..<paused.samples.count)
        let resumedAt = HeardSound.count(in: file)
        XCTAssertEqual(try oton.connect().send(["play"])["ok"]?.boolValue, true)
        // Sound again: the first 50 ms stretch above the threshold after the play request.
        let deadline = Date().addingTimeInterval(60)
        var firstSound: Int?
        while Date() < deadline, firstSound == nil {
            let heard = HeardSound(file: file).samples.dropFirst(resumedAt)
            if let first = heard.firstIndex(where: { abs(Int($0)) > 2000 }) { firstSound = first - resumedAt }
            if firstSound == nil { usleep(50_000) }
        }
        let first = try XCTUnwrap(firstSound, "no sound within 60 s of play: \(oton.directory.read("stderr.log"))")
        let status = try oton.connect().send(["status"])["data"]?["state"]?.stringValue
        print(
            String(
                format: "[measure] pause at %@: sound again %.2f s after play (the pause lasted %.0f s)", "\(moment)", HeardSound.seconds(first), pauseSeconds))
        XCTAssertEqual(status, "playing")
        XCTAssertLessThan(heardWhilePaused, 0.02, "the pause was heard as silence")
        XCTAssertLessThan(
            HeardSound.seconds(first), pauseSeconds * 0.5,
            "play after an early pause is heard at once, not after silence as long as the pause: \(oton.directory.read("stderr.log"))")
    }
}
