import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The volume the listener sets is where the next `oton play` starts (issue 39 §4), against a real
/// `oton play` of a real Icecast mount; `--volume` still wins, and a damaged file costs nothing.
final class VolumeMemoryTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private var plugins: String {
        #"{"stations": [{"name": "Test FM", "url": "\#(server.url(mount: "/live.mp3"))"}], "plugins": []}"#
    }

    /// Starts `oton play` with its state in `state`, waits for playing, and returns the volume it started at (percent).
    private func play(state: String, extra: [String] = []) throws -> (OtonProcess, Int) {
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"] + extra, plugins: plugins,
            environment: ["XDG_STATE_HOME": state])
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "playing")
        let status = try oton.ctl(["--json", "status"])
        let percent = try XCTUnwrap(JSONValue.parse(Data(status.stdout.utf8))["data"]?["volume"]?.numberValue, status.stdout)
        return (oton, Int(percent))
    }

    private func quit(_ oton: OtonProcess) {
        oton.process.terminate()
        oton.process.waitUntilExit()
    }

    func testTheVolumeSetLastIsWhereTheNextPlayStarts() throws {
        let state = try TemporaryDirectory(self).file("state")
        let (first, firstStart) = try play(state: state)
        XCTAssertEqual(firstStart, 100, "nothing kept yet: 100 %")
        XCTAssertEqual(try first.ctl(["volume", "40"]).status, 0)
        XCTAssertEqual(try first.ctl(["volume", "-5"]).status, 0)
        quit(first)
        let kept = try String(contentsOfFile: state + "/oton/volume.json", encoding: .utf8)
        XCTAssertTrue(kept.contains("\"percent\":35"), kept)

        let (second, secondStart) = try play(state: state)
        XCTAssertEqual(secondStart, 35, "the volume set last")
        quit(second)

        // --volume wins over what is kept, and what the listener sets then is kept.
        let (third, thirdStart) = try play(state: state, extra: ["--volume", "70"])
        XCTAssertEqual(thirdStart, 70)
        quit(third)
        let (fourth, fourthStart) = try play(state: state)
        XCTAssertEqual(fourthStart, 35, "a start volume given once is not kept")
        quit(fourth)
    }

    func testADamagedVolumeFileStartsAtFullVolumeAndSaysSo() throws {
        let directory = try TemporaryDirectory(self)
        let state = directory.file("state")
        try FileManager.default.createDirectory(atPath: state + "/oton", withIntermediateDirectories: true)
        try #"{"version": 1, "percent": 9999}"#.write(toFile: state + "/oton/volume.json", atomically: true, encoding: .utf8)
        let (oton, start) = try play(state: state)
        XCTAssertEqual(start, 100)
        XCTAssertTrue(oton.directory.read("stderr.log").contains("volume.json is damaged"), oton.directory.read("stderr.log"))
        XCTAssertEqual(try oton.ctl(["volume", "60"]).status, 0)
        quit(oton)
        XCTAssertTrue(try String(contentsOfFile: state + "/oton/volume.json", encoding: .utf8).contains("\"percent\":60"), "the next change replaces it")
    }
}
