import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Streams that cannot be played: the user learns why and what to do.
final class UnplayableStreamTests: XCTestCase {
    func testMissingMountExitsWithCode3AfterTheRetries() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("plugins.json", #"{"stations": [], "plugins": []}"#)
        let url = server.url(mount: "/missing.mp3").absoluteString
        let started = Date()
        let result = try runProcess(
            TestPaths.oton,
            [
                "play", url, "--headless", "--retries", "1", "--config", config,
                "--events", directory.file("events.jsonl"),
            ])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot play \(url)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("HTTP 404"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Try again later or update the station's stream URL"), result.stderr)
        XCTAssertTrue(result.stderr.contains("oton stopped after 1 reconnect attempt; run the same command"), "says that oton ended: \(result.stderr)")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.4, "one retry, after 0.5 s (a headless player retries at once, as a recorder does)")
        let states = directory.lines("events.jsonl").filter { $0.contains(#""kind":"state""#) }
        XCTAssertTrue(states.contains { $0.contains(#""retry_attempt":"1""#) }, states.joined(separator: "\n"))
        // At shutdown plugins hear a final "stopped"; the state before it is the error oton gave up on.
        XCTAssertTrue(states.last?.contains(#""state":"stopped""#) == true, states.last ?? "")
        let gaveUp = states.last { !$0.contains(#""state":"stopped""#) }
        XCTAssertTrue(gaveUp?.contains(#""error_kind":"stream-unavailable""#) == true, gaveUp ?? "")
    }

    func testURLServingHTMLIsStreamUnavailableAndNotRetried() throws {
        let http = try LocalHTTPServer.start(routes: [
            "/page": .html("<html><body><h1>Welcome to our radio</h1>" + String(repeating: "<p>text</p>", count: 500) + "</body></html>")
        ])
        defer { http.stop() }
        let harness = PlayerHarness(url: http.url("/page").absoluteString)
        harness.start()
        defer { harness.stop() }
        let failure = try XCTUnwrap(harness.waitForState("error") { $0.field("retry_attempt") == nil })
        XCTAssertEqual(failure.field("error_kind"), "stream-unavailable")
        XCTAssertEqual(failure.field("error_message"), "This address doesn't lead to an audio stream.")
        XCTAssertTrue(failure.field("error_suggestion")?.contains("web page") == true)
        XCTAssertEqual(harness.outcome, .gaveUp(.streamUnavailable(reason: .notAudio), reconnects: 0))
    }

    /// A script's limit (`--retries 3`, not headless): a 404 is an answer, not a blip. One retry, then
    /// exit 3 at once instead of after three retries (12 s), and the count said is the one made.
    /// (Without `--retries` a listener's player waits for the mount to come back: StationComesBackTests.)
    func testA404IsRetriedOnceThenOtonSaysSo() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("plugins.json", #"{"stations": [], "plugins": []}"#)
        let url = server.url(mount: "/missing.mp3").absoluteString
        let started = Date()
        let result = try runProcess(TestPaths.oton, ["play", url, "--no-tui", "--audio-sink", "fakesink", "--retries", "3", "--config", config])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("HTTP 404"), result.stderr)
        XCTAssertTrue(result.stderr.contains("oton stopped after 1 reconnect attempt; run the same command to try again."), result.stderr)
        XCTAssertFalse(result.stderr.contains("--retries N"), "more retries do not help a 404: \(result.stderr)")
        XCTAssertLessThan(elapsed, 11, "one retry after 2 s, not three (2 + 4 + 6 s)")
    }

    /// A station that cannot be reached: the log says it in words (GStreamer's codes only at debug
    /// level), and the last message does not promise the retries that are over.
    func testAnUnreachableStationEndsWithOneTrueMessage() throws {
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("plugins.json", #"{"stations": [], "plugins": []}"#)
        let url = "http://127.0.0.1:\(try FreePort.allocate())/stream.mp3"
        let result = try runProcess(TestPaths.oton, ["play", url, "--no-tui", "--audio-sink", "fakesink", "--retries", "1", "--config", config])
        XCTAssertEqual(result.status, 3, result.stderr)
        // Nothing listens on the port: the connection is refused, which names the server, not the network (issue 37 §6).
        XCTAssertTrue(result.stderr.contains("cannot play \(url): The station's server refused the connection: it is down or restarting."), result.stderr)
        XCTAssertTrue(result.stderr.contains("Try again later"), result.stderr)
        XCTAssertFalse(result.stderr.contains("tries again on its own"), "oton has stopped trying: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("oton stopped after 1 reconnect attempt"), result.stderr)
        XCTAssertTrue(result.stderr.contains("warning"), "the failure is still logged: \(result.stderr)")
        for code in ["error-quark", "→ stream-unavailable", "HTTP 4]"] {
            XCTAssertFalse(result.stderr.contains(code), "codes are for --log-level debug: \(result.stderr)")
        }
        let debug = try runProcess(
            TestPaths.oton,
            [
                "play", url, "--no-tui", "--audio-sink", "fakesink", "--retries", "0",
                "--log-level", "debug", "--config", config,
            ])
        // GStreamer's code, or libcurl's where the light engine receives (timeshift, on by default).
        XCTAssertTrue(debug.stderr.contains("gst-resource-error-quark") || debug.stderr.contains("[light engine]"), debug.stderr)
        XCTAssertTrue(debug.stderr.contains("→ stream-unavailable"), debug.stderr)
    }
}
