import Foundation
import OtonTestSupport
import XCTest

/// A stream URL without an extension is one listener: the engine's connection is the only one
/// (the probe before it was a second, which servers count). A playlist at such a URL still plays
/// its entry: the engine finds no audio, and the URL is resolved after all.
final class UnprobedStreamTests: XCTestCase {
    private func waitForRequests(_ server: HostileServer, _ path: String, atLeast count: Int) -> Int {
        let deadline = Date().addingTimeInterval(30)
        while server.requests(path) < count && Date() < deadline { usleep(50_000) }
        return server.requests(path)
    }

    func testPlayingAnExtensionlessStreamMakesOneConnection() throws {
        let server = try HostileServer(self)
        let oton = try OtonProcess(self, arguments: ["play", server.url("/icy?metaint=8192&meta=title"), "--headless"])
        let events = try oton.connect(timeout: 30)
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(
            events.waitForEvent("track", timeout: 40) { $0["title"]?.hasPrefix("Hostile") == true || $0["artist"] == "Hostile" },
            oton.directory.read("stderr.log"))
        XCTAssertEqual(server.requests("/icy"), 1, "one listener: \(oton.directory.read("stderr.log"))")
    }

    func testRecordingAnExtensionlessStreamMakesOneConnection() throws {
        let server = try HostileServer(self)
        let harness = try RecordHarness(self, url: server.url("/icy?metaint=8192&meta=title"), extra: ["--duration", "3s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 60), 0, harness.stderr)
        XCTAssertNotNil(harness.events.first { $0["kind"] as? String == "org.oton.recording.started" }, harness.stderr)
        XCTAssertEqual(server.requests("/icy"), 1, "one listener: \(harness.stderr)")
        XCTAssertTrue(harness.files().allSatisfy { !$0.hasPrefix("/") && !$0.contains("..") }, "\(harness.files())")
    }

    func testAnExtensionlessPlaylistStillPlaysItsEntry() throws {
        let server = try HostileServer(self)
        let directory = try TemporaryDirectory(self)
        let playlist = try directory.write(
            "station", "[playlist]\nFile1=\(server.url("/icy?metaint=8192&meta=title"))\nTitle1=Entry FM\nNumberOfEntries=1\nVersion=2\n")
        let url = server.url("/file?path=\(playlist.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? playlist)&type=audio%2Fx-scpls&rate=100000")
        let oton = try OtonProcess(self, arguments: ["play", url, "--headless"])
        let events = try oton.connect(timeout: 30)
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(
            events.waitForEvent("track", timeout: 40) { $0["title"]?.hasPrefix("Hostile") == true || $0["artist"] == "Hostile" },
            oton.directory.read("stderr.log"))
        // A playlist's entries are looked at before one is chosen (a dead one falls through to the next).
        XCTAssertEqual(server.requests("/icy"), 2, "the resolver's look at the entry, then the stream: \(oton.directory.read("stderr.log"))")
        XCTAssertEqual(waitForRequests(server, "/file", atLeast: 2), 2, "the engine's look, then the resolver's: \(oton.directory.read("stderr.log"))")
        XCTAssertFalse(oton.directory.read("stderr.log").contains("reconnecting"), oton.directory.read("stderr.log"))
    }
}
