import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record` against a real Icecast, as a user sees it: which plugins run, how long
/// --duration records, what names files get and what the log lines say.
final class RecordAsUserSeesTests: XCTestCase {
    /// plugins.json entries enabling History (with its database in `directory`) and Now playing.
    private func listeningPlugins(database: String) -> String {
        """
        [{"id": "org.oton.history", "path": "libOtonHistory.so", "enabled": true, "config": {"database": "\(database)"}},
         {"id": "org.oton.artwork", "path": "libOtonArtwork.so", "enabled": false}]
        """
    }

    func testARecordingIsNotListeningUnlessWithPluginAsks() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/plain.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let url = server.url(mount: "/plain.mp3").absoluteString
        let scratch = try TemporaryDirectory(self)

        let database = scratch.file("history.sqlite")
        let plain = try RecordHarness(self, url: url, extra: ["--duration", "1s"], plugins: listeningPlugins(database: database))
        try plain.start()
        XCTAssertEqual(plain.waitForExit(timeout: 30), 0, plain.stderr)
        XCTAssertFalse(plain.files().isEmpty, plain.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: database), "History ran during a recording")

        let asked = try RecordHarness(self, url: url, extra: ["--duration", "1s", "--with-plugin", "org.oton.history"],
                                      plugins: listeningPlugins(database: database))
        try asked.start()
        XCTAssertEqual(asked.waitForExit(timeout: 30), 0, asked.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: database), "--with-plugin org.oton.history did not load it: " + asked.stderr)

        let unknown = try RecordHarness(self, url: url, extra: ["--with-plugin", "org.oton.histroy"], plugins: listeningPlugins(database: database))
        try unknown.start()
        XCTAssertEqual(unknown.waitForExit(timeout: 20), 2, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("--with-plugin org.oton.histroy: plugins.json has no plugin with this id; known: "), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("org.oton.history"), unknown.stderr)

        let help = try runProcess(TestPaths.oton, ["record", "--help"])
        XCTAssertTrue(help.stdout.contains("--with-plugin"), help.stdout)
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(words.contains("a recorded track was not heard"), help.stdout)
        XCTAssertTrue(words.contains("--duration counts recorded audio"), help.stdout)
    }

    /// Icecast sends a 64 KiB burst (about 4 s at 128 kbit/s) on connecting; it counts as recorded audio.
    func testDurationIsRecordedAudioBurstIncludedAndNamesArePortable() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/dur.mp3", format: .mp3, initialTitle: "AC:DC - Who? Me.")
        let harness = try RecordHarness(self, url: server.url(mount: "/dur.mp3").absoluteString, extra: ["--duration", "4s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 30), 0, harness.stderr)
        let audio = harness.files().filter { $0.hasSuffix(".mp3") }
        XCTAssertEqual(audio, ["incomplete/Oton Test FM/AC：DC - Who？ Me..mp3"], harness.stderr)
        var total = 0.0
        for file in audio {
            let discovered = try Discovered.run(harness.out + "/" + file)
            XCTAssertTrue(discovered.ok, discovered.text)
            total += discovered.seconds
        }
        XCTAssertEqual(total, 4, accuracy: 0.5, "decoded audio of --duration 4s")
        XCTAssertTrue(harness.stderr.contains("of audio recorded, as --duration asked"), harness.stderr)
    }

    func testADroppedTrackLineSaysWhichTrackItsSizeAndWhyInWords() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/short.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/short.mp3").absoluteString,
                                        extra: ["--duration", "2s", "--min-seconds", "60", "--names", "posix"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 30), 0, harness.stderr)
        let line = try XCTUnwrap(harness.stdout.split(separator: "\n").first { $0.hasPrefix("dropped: ") }, harness.stdout)
        let pattern = #"^dropped: Oton Test FM/Artist A - Song One\.mp3 \(2\.\d s, \d\d KB\): too short \(2\.\d s < 60 s\), not kept$"#
        XCTAssertNotNil(line.range(of: pattern, options: .regularExpression), String(line))
        XCTAssertEqual(harness.files().filter { $0.hasSuffix(".mp3") }, [], "a dropped track leaves no file")
    }
}
