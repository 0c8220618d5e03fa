import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The metadata listener against clients that are not the control script: each is disconnected
/// with a reason in the log, and the next well-behaved client is served.
final class SnapcastMetadataListenerTests: XCTestCase {
    func testHostileScriptsAreDisconnectedAndAWellBehavedOneIsServed() async throws {
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let metadataPort = try FreePort.allocate()
        let closedPort = try FreePort.allocate()  // no snapserver: the sound is dropped, the metadata still served
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(icecast.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.snapcast", "path": "libOtonSnapcast.so",
                          "config": {"port": \(closedPort), "metadata_listen": "127.0.0.1:\(metadataPort)"}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        // "playing" may come before or after the title (a loaded machine subscribes late and gets both replayed).
        var playing = false
        XCTAssertNotNil(
            events.waitForEvent("track", timeout: 30, where: { $0["title"] == "Song One" }) { event in
                if event.kind == "state" && event.fields["state"] == "playing" { playing = true }
            }, oton.directory.read("stderr.log"))
        if !playing {
            XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, oton.directory.read("stderr.log"))
        }

        let overlong = try LineClient(port: metadataPort)
        XCTAssertEqual(overlong.readLine(), #"{"jsonrpc":"2.0","method":"Plugin.Stream.Ready"}"#)
        overlong.send(String(repeating: "x", count: 20_000))
        XCTAssertTrue(overlong.waitForClose(timeout: 20), "a line over 16 KiB ends the connection")

        let wrongStream = try LineClient(port: metadataPort)
        wrongStream.send(#"{"jsonrpc":"2.0","method":"Oton.Stream","params":{"stream":"Kitchen"}}"#)
        XCTAssertTrue(wrongStream.waitForClose(timeout: 20), "a script for another stream is refused")

        let notJSON = try LineClient(port: metadataPort)
        notJSON.send("GET / HTTP/1.1")
        XCTAssertTrue(notJSON.waitForClose(timeout: 20), "a line that is not JSON-RPC ends the connection")

        // Four connections that say nothing fill every place; the script still gets in (the oldest
        // is closed for it), and the silent ones are closed once they fail to name their stream.
        let squatters = try (0..<4).map { _ in try LineClient(port: metadataPort) }
        let script = try LineClient(port: metadataPort)
        script.send(#"{"jsonrpc":"2.0","method":"Oton.Stream","params":{"stream":"Oton"}}"#)
        script.send(#"{"id":4,"jsonrpc":"2.0","method":"Plugin.Stream.Player.GetProperties"}"#)
        var answer: JSONValue?
        let deadline = Date().addingTimeInterval(20)
        while answer == nil, Date() < deadline, let line = script.readLine() {
            if let value = try? JSONValue.parse(Data(line.utf8)), value["id"]?.int64Value == 4 { answer = value }
        }
        XCTAssertEqual(answer?["result"]?["metadata"]?["title"]?.stringValue, "Song One", "GetProperties answered: \(answer?.jsonText ?? "nothing")")
        XCTAssertEqual(answer?["result"]?["metadata"]?["album"]?.stringValue, "Test FM")

        for (index, squatter) in squatters.enumerated() {
            XCTAssertTrue(squatter.waitForClose(timeout: 30), "silent connection \(index) closed")
        }
        XCTAssertEqual(
            try JSONValue.parse(Data(try oton.ctl(["snapcast", "--format", "json"]).stdout.utf8))["control_scripts"]?.numberValue, 1,
            "the script is still connected")

        let log = oton.directory.read("stderr.log")
        XCTAssertTrue(log.contains("more than 4 connections at once; the oldest is closed"), log)
        XCTAssertTrue(log.contains("it did not name its stream within 10 s"), log)
        XCTAssertTrue(log.contains("control script disconnected: a line longer than 16384 bytes"), log)
        XCTAssertTrue(log.contains("a control script for stream Kitchen connected, but this plugin sends to stream Oton"), log)
        XCTAssertTrue(log.contains("control script disconnected: a line that is not a JSON object"), log)
        let status = try oton.ctl(["status"]).stdout
        XCTAssertTrue(status.hasPrefix("playing") || status.hasPrefix("buffering"), "playback untouched: \(status)")
        script.close()
    }
}
