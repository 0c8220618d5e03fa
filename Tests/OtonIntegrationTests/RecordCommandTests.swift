import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record`'s own options: --duration, --format, a bad folder.
final class RecordCommandTests: XCTestCase {
    /// --duration is audio time: Icecast's burst (here 64 KiB, 4 s of 128 kbit/s, sent at once) counts, so the files
    /// hold the duration asked for, not the burst plus the duration (issue 15.19: 12s used to give 27 s).
    func testDurationCountsTheAudioRecordedAndTheLastTrackIsIncomplete() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/dur.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/dur.mp3").absoluteString, extra: ["--duration", "6s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 30), 0, harness.stderr)
        XCTAssertEqual(harness.files(), ["Oton Test FM/incomplete/Artist A - Song One.mp3", "index.json"], harness.stderr)
        XCTAssertTrue(harness.stdout.contains("incomplete: \(harness.out)/Oton Test FM/incomplete/Artist A - Song One.mp3"), harness.stdout)
        let recorded = try Discovered.run(harness.out + "/Oton Test FM/incomplete/Artist A - Song One.mp3")
        XCTAssertTrue(recorded.ok, recorded.text)
        XCTAssertEqual(recorded.seconds, 6, accuracy: 0.5, "the audio recorded is the duration asked for")
        let stopped = try XCTUnwrap(harness.events.first { $0["kind"] as? String == "org.oton.file-sink.stopped" }.map(harness.fields))
        XCTAssertEqual(stopped["reason"], "max-duration")
        XCTAssertEqual(stopped["error"], "false")
    }

    /// Issue 39 §3/§4: a server that simply closes the stream was "network unavailable", and every
    /// reconnect was said twice (the player's line and the recorder's).
    func testAServerThatClosesTheStreamIsSaidSoOncePerReconnect() throws {
        let directory = try TemporaryDirectory(self)
        let audio = directory.file("four-seconds.mp3")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=172", "!", "audioconvert", "!",
                    "lamemp3enc", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let server = try LocalHTTPServer.start(routes: [
            "/closing.mp3": CannedResponse(
                headers: ["Content-Type": "audio/mpeg"],
                // A live stream that stops has no length (one with a length is a programme that ended: ProgrammeEndsTests).
                body: try Data(contentsOf: URL(fileURLWithPath: audio)), sendsLength: false)
        ])
        defer { server.stop() }
        let harness = try RecordHarness(self, url: server.url("/closing.mp3").absoluteString, extra: ["--duration", "6s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 90), 0, harness.stderr)
        let ended = harness.stderr.components(separatedBy: "the server ended the stream").count - 1
        XCTAssertGreaterThanOrEqual(ended, 1, harness.stderr)
        XCTAssertFalse(harness.stderr.contains("network seems to be unavailable"), harness.stderr)
        XCTAssertFalse(harness.stderr.contains("network-unavailable"), harness.stderr)
        XCTAssertFalse(harness.stderr.contains("reconnect attempt"), "one line per reconnect, the player's: \(harness.stderr)")
        let failure = try XCTUnwrap(harness.events.map(harness.fields).first { $0["error_kind"] != nil }, "a state event carries the failure")
        XCTAssertEqual(failure["error_kind"], "stream-unavailable")
        XCTAssertEqual(failure["error_message"], "The station's server ended the stream.")
    }

    /// A recording is not listening: an enabled history plugin does not run (nothing is "heard" or scrobbled)
    /// unless --with-plugin asks for it; an id that is not enabled is a usage error.
    func testRecordRunsOnlyTheRecordingPluginsUnlessAskedForMore() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/only.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let config = """
            {"stations": [], "plugins": [{"id": "org.oton.history", "path": "\(TestPaths.pluginLibrary("OtonHistory"))", "enabled": true}]}
            """
        let plain = try RecordHarness(self, url: server.url(mount: "/only.mp3").absoluteString, extra: ["--duration", "2s"], config: config)
        try plain.start()
        XCTAssertEqual(plain.waitForExit(timeout: 30), 0, plain.stderr)
        XCTAssertFalse(plain.stderr.contains("org.oton.history"), plain.stderr)
        XCTAssertTrue(plain.stderr.contains("org.oton.file-sink"), plain.stderr)

        let asked = try RecordHarness(
            self, url: server.url(mount: "/only.mp3").absoluteString,
            extra: ["--duration", "2s", "--with-plugin", "org.oton.history"], config: config)
        try asked.start()
        XCTAssertEqual(asked.waitForExit(timeout: 30), 0, asked.stderr)
        XCTAssertTrue(asked.stderr.contains("plugin org.oton.history"), asked.stderr)

        let unknown = try RecordHarness(
            self, url: server.url(mount: "/only.mp3").absoluteString,
            extra: ["--with-plugin", "org.example.none"], config: config)
        try unknown.start()
        XCTAssertEqual(unknown.waitForExit(timeout: 20), 2, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("--with-plugin org.example.none: no enabled plugin has that id; enabled: org.oton.history"), unknown.stderr)
    }

    func testNoSplitWithCueKeepsOneFileAndListsEachTitleWhereItBegan() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/cue.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/cue.mp3").absoluteString, extra: ["--no-split", "--cue"])
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        for (title, song) in [("Artist B - Song Two", "Song Two"), ("Artist C - Song Three", "Song Three")] {
            try await Task.sleep(nanoseconds: 3_000_000_000)
            try await server.setTitle(mount: "/cue.mp3", title: title)
            XCTAssertNotNil(harness.waitForEvent("track", timeout: 10) { $0["title"] == song }, harness.stderr)
        }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        let files = harness.files()
        XCTAssertEqual(files.filter { $0.hasSuffix(".mp3") }.count, 1, "\(files)")
        let cueName = try XCTUnwrap(files.first { $0.hasSuffix(".cue") }, "\(files)")
        let cue = try String(contentsOfFile: harness.out + "/" + cueName, encoding: .utf8)
        XCTAssertTrue(cue.contains("FILE \"Artist A - Song One.mp3\" MP3"), cue)
        let titles = cue.split(separator: "\n").filter { $0.hasPrefix("    TITLE") }
        XCTAssertEqual(titles, ["    TITLE \"Song One\"", "    TITLE \"Song Two\"", "    TITLE \"Song Three\""], cue)
        // The gap between INDEX lines is the gap between the host's title events.
        let indexes = cue.split(separator: "\n").filter { $0.hasPrefix("    INDEX 01") }.map { line -> Double in
            let parts = line.split(separator: " ").last!.split(separator: ":").map { Double($0)! }
            return parts[0] * 60 + parts[1] + parts[2] / 75
        }
        var eventTimes: [Double] = []
        for event in harness.events where event["kind"] as? String == "track" {
            if let title = harness.fields(event)["title"], ["Song Two", "Song Three"].contains(title), let mono = event["mono_ns"] as? Double {
                eventTimes.append(mono / 1e9)
            }
        }
        XCTAssertEqual(indexes.count, 3)
        XCTAssertEqual(eventTimes.count, 2)
        if indexes.count == 3 && eventTimes.count == 2 {
            // The light engine reads every 500 ms: the CUE is placed at the title's byte, but the host's
            // event times, the reference here, can each be up to a read late.
            XCTAssertEqual(indexes[2] - indexes[1], eventTimes[1] - eventTimes[0], accuracy: 1.0, cue)
        }
    }

    func testUnknownFormatOutOfRangeWindowAndUnwritableFolderAreUsageErrors() throws {
        let flac = try RecordHarness(self, url: "http://127.0.0.1:9/none.mp3", extra: ["--format", "flac"])
        try flac.start()
        XCTAssertEqual(flac.waitForExit(timeout: 20), 2)
        XCTAssertTrue(flac.stderr.contains("--format flac: use stream"), flac.stderr)

        let window = try RecordHarness(self, url: "http://127.0.0.1:9/none.mp3", extra: ["--silence-window", "45"])
        try window.start()
        XCTAssertEqual(window.waitForExit(timeout: 20), 2)
        XCTAssertTrue(window.stderr.contains("config.silence_window must be a number of seconds from 0 to 30"), window.stderr)

        let directory = try TemporaryDirectory(self)
        let blocker = try directory.write("file", "not a folder")
        let bad = try RecordHarness(self, url: "http://127.0.0.1:9/none.mp3", out: blocker + "/out")
        try bad.start()
        XCTAssertEqual(bad.waitForExit(timeout: 20), 2)
        XCTAssertTrue(bad.stderr.contains("cannot record: "), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("cannot create the output folder"), bad.stderr)
    }
}
