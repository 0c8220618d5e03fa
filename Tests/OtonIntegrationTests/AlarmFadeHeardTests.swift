import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The alarm's fade as a listener hears it: `oton play --fade-in 5s --volume 80` into a real
/// PulseAudio null sink, its monitor recorded with parec. The level rises from silence, never
/// falls, takes the fade's time, and settles at the target volume.
final class AlarmFadeHeardTests: XCTestCase {
    func testTheFadeRisesFromSilenceToTheTargetAtTheSoundServer() async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/tone.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let recording = directory.file("monitor.raw")
        try pulse.record(into: recording)
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/tone.mp3"))"}], "plugins": []}
            """
        // --no-level: the station at its own level, so the plateau is the volume's alone (levelling at
        // the sink is LoudnessLevellingHeardTests').
        let oton = try OtonProcess(
            self,
            arguments: [
                "play", "Test FM", "--fade-in", "5s", "--volume", "80", "--alarm",
                "--audio-sink", "pulsesink", "--no-tui", "--no-level",
            ],
            plugins: plugins, environment: ["PULSE_SERVER": pulse.environment["PULSE_SERVER"]])
        _ = try oton.connect(timeout: 30)

        // Wait until the level has stayed flat for 2 s after rising: the fade is over.
        let window = 0.25
        var levels: [Double] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            levels = PulseAudioServer.levels(of: recording, windowSeconds: window)
            if let start = levels.firstIndex(where: { $0 > 0.002 }), levels.count - start > Int(9 / window) { break }
            usleep(250_000)
        }
        let start = try XCTUnwrap(levels.firstIndex { $0 > 0.002 }, "nothing was heard: \(oton.directory.read("stderr.log"))")
        let heard = Array(levels[start...])
        let plateau = heard.suffix(8).reduce(0, +) / 8
        // The lab's tone is a sine at 0.1 of full scale (RMS 0.0707); --volume 80 is heard at 0.8³ of it
        // (the volume's perceptual curve, OutputVolume.gain): 0.036.
        XCTAssertEqual(plateau, 0.8 * 0.8 * 0.8 * 0.1 / 2.0.squareRoot(), accuracy: 0.007, "it settles at the target volume: \(heard)")
        // The fade starts when the first sound reaches the sink; on a loaded machine the sound server may
        // play it a second later (its first window heard at 25 % of the plateau, seen once with ten tests at
        // once), so the margins below are wide: without a fade the first window is the plateau, at 0 s.
        XCTAssertLessThan(heard[0], plateau * 0.5, "it starts near silence: \(heard.prefix(4)) of \(plateau)")
        // Silence inside a window once the sound has begun (10 ms or more of zeros, which a sine,
        // however quiet, never has) is the sound server running dry on a loaded machine (an
        // underrun: a whole window of it seen once in CI with four tests at once, a quarter of one
        // beside two CPU hogs, which lowered that window's level), not the fade falling: such a
        // window is passed over, and more than four fail the test.
        let samples = HeardSound(file: recording).samples
        let perWindow = HeardSound.samples(window)
        let dropouts = heard.indices.dropFirst().filter { index in
            let from = (start + index) * perWindow
            return Self.hasSilence(in: samples[min(from, samples.count)..<min(from + perWindow, samples.count)], run: HeardSound.samples(0.01))
        }
        XCTAssertLessThanOrEqual(dropouts.count, 4, "the sound keeps flowing: \(dropouts) of \(heard)")
        let flowing = heard.indices.filter { !dropouts.contains($0) }.map { heard[$0] }
        for (index, (before, after)) in zip(flowing, flowing.dropFirst()).enumerated() {
            XCTAssertGreaterThanOrEqual(after, before - plateau * 0.08, "it never falls (window \(index)): \(heard)")
        }
        let reached = try XCTUnwrap(heard.firstIndex { $0 >= plateau * 0.9 }, "\(heard)")
        let seconds = Double(reached) * window
        XCTAssertGreaterThan(seconds, 2, "over the 5 s fade, not at once: \(heard)")
        XCTAssertLessThan(seconds, 12, "the fade ends: \(heard)")
        print("[measure] fade heard at the sound server: 90 % of the final level after \(seconds) s; levels \(heard.map { String(format: "%.3f", $0) })")
    }

    /// Whether `samples` hold `run` samples of silence in a row (zeros: what the sound server plays
    /// when a stream runs dry).
    private static func hasSilence(in samples: ArraySlice<Int16>, run: Int) -> Bool {
        var quiet = 0
        for sample in samples {
            quiet = abs(Int(sample)) <= 2 ? quiet + 1 : 0
            if quiet >= run { return true }
        }
        return false
    }
}
