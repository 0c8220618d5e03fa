import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 36 §2 as a listener hears it: stations from the lab Icecast (MP3 sines fed by
/// gst-launch-1.0) played by `oton play --audio-sink pulsesink` into a real PulseAudio null sink,
/// its monitor recorded with parec and measured in stretches after the state each check needs.
/// Levels are RMS of the mono monitor; peaks are sample peaks at the sink (48 kHz; the true peak
/// between samples is not measured here: LevellerLogicTests holds the limiter to its ceiling).
final class LoudnessLevellingHeardTests: XCTestCase {
    /// 0.05 and 0.2 of full scale: 12.04 dB apart (−26.7 and −14.7 LUFS once encoded).
    static let quietAmplitude = 0.05
    static let loudAmplitude = 0.2

    func testTwoStationsTwelveDecibelsApartAreHeardWithinOneDecibelAfterTenSeconds() async throws {
        let lab = try await Lab(self)
        defer { lab.stop() }
        let oton = try lab.play("Quiet FM")
        _ = try oton.connect(timeout: 30)
        let client = Control(oton: oton)
        let quiet = try lab.levelAfterPlaying(client, station: "Quiet FM", seconds: 10)
        _ = try client.send(["station", "Loud FM"])
        let loud = try lab.levelAfterPlaying(client, station: "Loud FM", seconds: 10)
        let apart = abs(decibels(loud) - decibels(quiet))
        print(
            "[measure] levelled at the sink after 10 s: quiet station \(text(quiet)), loud station \(text(loud)): \(String(format: "%.2f", apart)) dB apart (12.04 dB at the source)"
        )
        XCTAssertLessThan(apart, 1, "within 1 dB: quiet \(text(quiet)), loud \(text(loud))")
        let status = try client.send(["status"])
        let level = try XCTUnwrap(status["data"]?["level"], "status says the levelling: \(status)")
        XCTAssertEqual(level["enabled"]?.boolValue, true)
        // The loud station (−14.7 LUFS) is turned down by about 3.3 dB towards −18 LUFS.
        XCTAssertEqual(try XCTUnwrap(level["gain_db"]?.numberValue), -3.3, accuracy: 1, "\(level)")
    }

    func testASwitchBackToAStationHeardBeforeStartsAtItsRememberedGain() async throws {
        let lab = try await Lab(self)
        defer { lab.stop() }
        let oton = try lab.play("Quiet FM")
        _ = try oton.connect(timeout: 30)
        let client = Control(oton: oton)
        // Each measured for 12 s (more than the 10 s a measurement needs to be remembered).
        let quiet = try lab.levelAfterPlaying(client, station: "Quiet FM", seconds: 12)
        _ = try client.send(["station", "Loud FM"])
        let loud = try lab.levelAfterPlaying(client, station: "Loud FM", seconds: 12)
        var firstSeconds: [(station: String, level: Double, steady: Double)] = []
        for (station, steady) in [("Quiet FM", quiet), ("Loud FM", loud)] {
            let switched = HeardSound.count(in: lab.recording)
            _ = try client.send(["station", station])
            let first = try lab.firstSecond(after: switched)
            firstSeconds.append((station, first, steady))
        }
        for heard in firstSeconds {
            print("[measure] first second after switching back to \(heard.station): \(text(heard.level)) (steady \(text(heard.steady)))")
            XCTAssertLessThan(
                abs(decibels(heard.level) - decibels(heard.steady)), 2,
                "\(heard.station) starts at its remembered gain: first second \(text(heard.level)), steady \(text(heard.steady))")
        }
        let memory = oton.directory.read("state/oton/loudness.json")
        XCTAssertTrue(memory.contains("/quiet.mp3") && memory.contains("/loud.mp3"), "both stations remembered: \(memory)")
    }

    func testAStationNearFullScaleNeverClipsAtTheSink() async throws {
        let lab = try await Lab(self)
        defer { lab.stop() }
        let oton = try lab.play("Full FM")
        _ = try oton.connect(timeout: 30)
        let client = Control(oton: oton)
        let start = try lab.waitUntilPlaying(client, station: "Full FM")
        // From the first sound on, when the gain is still 0 dB and only the limiter stands between
        // a sine at 0.99 of full scale and the sink, through the settling, to the levelled sound.
        let heard = try lab.recorded(from: start, seconds: 8)
        let peak = heard.peak(0..<heard.samples.count)
        print("[measure] near full scale (sine at 0.99): sample peak at the sink \(String(format: "%.2f", decibels(peak))) dBFS over 8 s from the start")
        XCTAssertGreaterThan(peak, 0.05, "it was heard")
        XCTAssertLessThanOrEqual(decibels(peak), -1.0, "the limiter keeps the sample peak at or below −1 dBFS")
    }

    func testWithLevellingOffTheTwelveDecibelsAreBack() async throws {
        let lab = try await Lab(self)
        defer { lab.stop() }
        let oton = try lab.play("Quiet FM", extra: ["--no-level"])
        _ = try oton.connect(timeout: 30)
        let client = Control(oton: oton)
        let quiet = try lab.levelAfterPlaying(client, station: "Quiet FM", seconds: 3)
        _ = try client.send(["station", "Loud FM"])
        let loud = try lab.levelAfterPlaying(client, station: "Loud FM", seconds: 3)
        let apart = decibels(loud) - decibels(quiet)
        print("[measure] levelling off: quiet \(text(quiet)), loud \(text(loud)): \(String(format: "%.2f", apart)) dB apart")
        XCTAssertEqual(apart, 12.04, accuracy: 1, "the stations' own levels: quiet \(text(quiet)), loud \(text(loud))")
        let level = try client.send(["level"])
        XCTAssertEqual(level["data"]?["enabled"]?.boolValue, false, "\(level)")
        // Turned on at run time, the loud station comes down towards the target.
        _ = try client.send(["level", "on"])
        let levelled = try lab.levelAfterPlaying(client, station: "Loud FM", seconds: 5)
        print("[measure] after `level on`: loud \(text(levelled))")
        // −14.7 LUFS towards −18: about 3.3 dB down once settled.
        XCTAssertLessThan(decibels(levelled), decibels(loud) - 2.5, "level on turns the loud station down: \(text(loud)) → \(text(levelled))")
    }
}

private func text(_ fraction: Double) -> String { String(format: "%.2f dBFS", decibels(fraction)) }

/// Requests to the oton under test, each on a connection of its own: the control socket closes a
/// connection that sends nothing for 15 s, and the waits between requests here can be longer.
private struct Control {
    let oton: OtonProcess

    func send(_ words: [String]) throws -> [String: JSONValue] {
        try oton.connect().send(words)
    }
}

/// The lab: Icecast with three stations (quiet, loud, near full scale), a PulseAudio null sink
/// recorded by parec, and the plugins.json that lists the stations, with a target of −18 LUFS (the
/// figures below are worked out for it; the default is −16).
private struct Lab {
    let testCase: XCTestCase
    let server: IcecastServer
    let pulse: PulseAudioServer
    let directory: TemporaryDirectory
    let recording: String
    let plugins: String

    init(_ testCase: XCTestCase) async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        self.testCase = testCase
        server = try await IcecastServer.start()
        for (mount, amplitude) in [
            ("/quiet.mp3", LoudnessLevellingHeardTests.quietAmplitude),
            ("/loud.mp3", LoudnessLevellingHeardTests.loudAmplitude), ("/full.mp3", 0.99),
        ] {
            _ = try await server.startSource(mount: mount, format: .mp3, initialTitle: "Artist - Tone", stationName: mount, amplitude: amplitude)
        }
        directory = try TemporaryDirectory(testCase)
        pulse = try PulseAudioServer(directory: directory.file("pulse"))
        recording = directory.file("monitor.raw")
        try pulse.record(into: recording)
        plugins = """
            {"stations": [{"name": "Quiet FM", "url": "\(server.url(mount: "/quiet.mp3"))"},
                          {"name": "Loud FM", "url": "\(server.url(mount: "/loud.mp3"))"},
                          {"name": "Full FM", "url": "\(server.url(mount: "/full.mp3"))"}], "plugins": [], "loudness": -18}
            """
    }

    func stop() {
        pulse.stop()
        server.stop()
    }

    func play(_ station: String, extra: [String] = []) throws -> OtonProcess {
        try OtonProcess(
            testCase, arguments: ["play", station, "--audio-sink", "pulsesink", "--no-tui"] + extra,
            plugins: plugins, environment: ["PULSE_SERVER": pulse.environment["PULSE_SERVER"]])
    }

    /// Waits until oton says it plays `station`; returns where the recording stood then.
    func waitUntilPlaying(_ client: Control, station: String, timeout: TimeInterval = 60) throws -> Int {
        try SinkRecording(file: recording).waitUntilPlaying(client.oton, station: station, timeout: timeout)
    }

    /// `seconds` of recording from sample `start` on, waited for (a loaded machine records slowly).
    func recorded(from start: Int, seconds: Double, timeout: TimeInterval = 90) throws -> HeardSound {
        try SinkRecording(file: recording).recorded(from: start, seconds: seconds, timeout: timeout)
    }

    /// The level of the last 2 s of the first `seconds` after `station` plays.
    func levelAfterPlaying(_ client: Control, station: String, seconds: Double) throws -> Double {
        let start = try waitUntilPlaying(client, station: station)
        let heard = try recorded(from: start, seconds: seconds)
        return heard.steadyLevel(heard.samples.count - HeardSound.samples(2)..<heard.samples.count)
    }

    /// The level of the first second of sound after the silence a switch makes (the switch was
    /// asked for at sample `switched`).
    func firstSecond(after switched: Int, timeout: TimeInterval = 60) throws -> Double {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let heard = HeardSound(file: recording)
            if let start = heard.soundAfterSilence(from: switched), heard.samples.count >= start + HeardSound.samples(1.1) {
                // One 50 ms window in: the window that found the start may hold its first samples only.
                let from = start + HeardSound.samples(0.05)
                return heard.rms(from..<from + HeardSound.samples(1))
            }
            usleep(100_000)
        }
        throw FixtureError("no sound after the switch within \(timeout) s")
    }
}
