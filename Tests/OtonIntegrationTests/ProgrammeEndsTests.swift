import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// Issue 54 §9: a programme that ends (an HTTP body with a Content-Length, a 5-minute bulletin) was
/// said to have ended and replayed from the start 2 s later, for ever (the player never gives up on a
/// live station). Now it is played once to its end, heard at a PulseAudio null sink, and `oton play`
/// says "the programme ended" and exits 0 — with timeshift on (the default) and off.
final class ProgrammeEndsTests: XCTestCase {
    func testAProgrammeWithALengthIsPlayedOnceToItsEndWithTimeshift() throws {
        try playsOnceToItsEnd(extra: [])
    }

    func testAProgrammeWithALengthIsPlayedOnceToItsEndWithoutTimeshift() throws {
        try playsOnceToItsEnd(extra: ["--timeshift", "0"])
    }

    private func playsOnceToItsEnd(extra: [String]) throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let directory = try TemporaryDirectory(self)
        let audio = directory.file("bulletin.mp3")
        // 6 s of a loud sine (258 buffers of 1024 samples at 44.1 kHz).
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=258", "wave=sine", "volume=0.5", "!", "audioconvert", "!",
                    "lamemp3enc", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let server = try LocalHTTPServer.start(routes: [
            "/bulletin.mp3": CannedResponse(headers: ["Content-Type": "audio/mpeg"], body: try Data(contentsOf: URL(fileURLWithPath: audio)))
        ])
        defer { server.stop() }
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let heardFile = directory.file("monitor.raw")
        try pulse.record(into: heardFile)
        let run = try OtonRun(
            self, ["play", server.url("/bulletin.mp3").absoluteString, "--no-tui", "--audio-sink", "pulsesink"] + extra,
            environment: ["PULSE_SERVER": try XCTUnwrap(pulse.environment["PULSE_SERVER"])])
        let ended = run.wait(timeout: 60) { !run.process.isRunning }
        XCTAssertTrue(ended.met, "oton play ends with the programme (it reconnected and replayed it):\n\(run.stderr)")
        if !ended.met { _ = run.terminate() }
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("the programme ended"), run.stderr)
        XCTAssertFalse(run.stderr.contains("the server ended the stream"), run.stderr)
        XCTAssertEqual(server.requests(path: "/bulletin.mp3").count, 1, "fetched once, not replayed: \(run.stderr)")
        // Heard whole, once: about 6 s of sound above −30 dBFS (not cut when the body had all arrived, not twice).
        let heard = HeardSound(file: heardFile)
        let window = HeardSound.samples(0.05)
        let loud = stride(from: 0, to: max(0, heard.samples.count - window), by: window).filter {
            decibels(heard.rms($0..<($0 + window))) > -30
        }
        let seconds = Double(loud.count) * 0.05
        print(String(format: "[measure] programme of 6 s heard for %.2f s", seconds))
        XCTAssertGreaterThan(seconds, 4.5, "the programme was heard to its end")
        XCTAssertLessThan(seconds, 8.0, "the programme was heard once")
    }
}
