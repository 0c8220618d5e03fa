import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton record --with-plugin org.oton.metrics` against a real Icecast2 server, scraped over
/// loopback with real HTTP GETs while it records, and the text checked by promtool.
final class MetricsRecordTests: XCTestCase {
    /// The value of the sample line that starts with `series` ("name{labels}"), or nil.
    private func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    /// Scrapes until `predicate` holds on the body (deadline `timeout`); the last body either way.
    private func scrape(port: UInt16, timeout: TimeInterval = 30, harness: RecordHarness, until predicate: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var body = ""
        while Date() < deadline {
            if let response = try? WebRemoteHTTPClient.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"),
                response.status == 200
            {
                body = response.body
                if predicate(body) { return body }
            }
            guard harness.process.isRunning else { break }
            usleep(100_000)
        }
        return body
    }

    func testRecordingServesGrowingFiguresForItsStationThatPromtoolAccepts() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/metrics.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
        let port = try FreePort.allocate()
        let config = """
            {"stations": [], "plugins": [{"id": "org.oton.metrics", "path": "\(TestPaths.pluginLibrary("OtonMetrics"))", "enabled": true,
              "config": {"listen": "127.0.0.1:\(port)"}}]}
            """
        let harness = try RecordHarness(
            self, url: server.url(mount: "/metrics.mp3").absoluteString,
            extra: ["--with-plugin", "org.oton.metrics"], config: config)
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 30) { $0["title"] == "Song One" }, harness.stderr)

        let bytes = #"oton_station_received_bytes_total{station="Oton Test FM"}"#
        let playing = #"oton_station_state{station="Oton Test FM",state="playing"}"#
        let tracks = #"oton_station_tracks_total{station="Oton Test FM"}"#
        // The plugin's mailbox may run a moment behind the events file: wait until it has seen all three.
        let first = scrape(port: port, harness: harness) {
            (self.value($0, bytes) ?? 0) > 0 && self.value($0, playing) == 1 && self.value($0, tracks) == 1
        }
        let before = try XCTUnwrap(value(first, bytes), "the station's bytes:\n\(first)\n\(harness.stderr)")
        XCTAssertGreaterThan(before, 0)
        XCTAssertEqual(value(first, playing), 1, first)
        XCTAssertEqual(value(first, tracks), 1, first)
        XCTAssertEqual(value(first, #"oton_station_state{station="Oton Test FM",state="connecting"}"#), 0, first)
        XCTAssertEqual(value(first, #"oton_station_reconnects_total{station="Oton Test FM"}"#), 0, first)
        XCTAssertEqual(value(first, "oton_sessions"), 1, first)
        XCTAssertNotNil(value(first, #"oton_build_info{version="\#(OtonVersion.current)",plugin_version="0.1.0"}"#), first)
        XCTAssertGreaterThan(value(first, "process_resident_memory_bytes") ?? 0, 1_000_000, first)
        XCTAssertGreaterThan(value(first, "process_open_fds") ?? 0, 3, first)
        let start = try XCTUnwrap(value(first, "process_start_time_seconds"), first)
        XCTAssertEqual(start, Date().timeIntervalSince1970, accuracy: 600, "oton started minutes ago at most")
        XCTAssertLessThan(value(first, #"oton_station_last_byte_age_seconds{station="Oton Test FM"}"#) ?? 99, 10, first)
        XCTAssertTrue(harness.stderr.contains("metrics on http://127.0.0.1:\(port)/metrics"), harness.stderr)

        let grown = scrape(port: port, harness: harness) { (self.value($0, bytes) ?? 0) > before }
        XCTAssertGreaterThan(value(grown, bytes) ?? 0, before, "bytes grow while recording:\n\(grown)")

        try await server.setTitle(mount: "/metrics.mp3", title: "Artist B - Song Two")
        let later = scrape(port: port, harness: harness) { self.value($0, tracks) == 2 }
        XCTAssertEqual(value(later, tracks), 2, "a new title is a new track:\n\(later)")

        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        XCTAssertThrowsError(try WebRemoteHTTPClient(port: port), "the listener closed with the session")

        guard let result = try Promtool.checkMetrics(later, in: TemporaryDirectory(self)) else {
            throw XCTSkip("promtool is not installed (Debian package prometheus); the text was not checked by it")
        }
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr + "\n" + later)
    }

    /// Issue 39, N8: two stations whose streams share an icy-name were one station to a scraper, and a
    /// dead one hid behind a live one. In a recorder of several stations each is labelled by its session.
    func testSeveralStationsAreLabelledByTheirSessionsNotTheirIcyName() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        for mount in ["/a.mp3", "/b.mp3"] {
            _ = try await server.startSource(mount: mount, format: .mp3, initialTitle: "Artist A - Song One", stationName: "Same FM")
        }
        let port = try FreePort.allocate()
        let config = """
            {"stations": [{"name": "First", "url": "\(server.url(mount: "/a.mp3"))"}, {"name": "Second", "url": "\(server.url(mount: "/b.mp3"))"},
                          {"name": "Dead", "url": "http://127.0.0.1:\(try FreePort.allocate())/dead.mp3"}],
             "plugins": [{"id": "org.oton.metrics", "path": "\(TestPaths.pluginLibrary("OtonMetrics"))", "enabled": true,
              "config": {"listen": "127.0.0.1:\(port)"}}]}
            """
        let harness = try RecordHarness(self, url: "--all", extra: ["--with-plugin", "org.oton.metrics"], config: config)
        try harness.start()
        let body = scrape(port: port, harness: harness) {
            self.value($0, #"oton_station_state{station="First",state="playing"}"#) == 1
                && self.value($0, #"oton_station_state{station="Second",state="playing"}"#) == 1
                && self.value($0, #"oton_station_state{station="Dead",state="playing"}"#) == 0
        }
        XCTAssertEqual(value(body, #"oton_station_state{station="First",state="playing"}"#), 1, body)
        XCTAssertEqual(value(body, #"oton_station_state{station="Second",state="playing"}"#), 1, body)
        XCTAssertEqual(value(body, #"oton_station_state{station="Dead",state="playing"}"#), 0, "the dead station shows as itself:\n\(body)")
        XCTAssertFalse(body.contains(#"station="Same FM""#), "no label from the streams' icy-name:\n\(body)")
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
    }
}
