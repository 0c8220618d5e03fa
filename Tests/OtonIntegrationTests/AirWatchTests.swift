import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton record --silence-after … --title-stall-after … --on-alert CMD` against a real Icecast fed by
/// gst-launch-1.0: a station whose source is silent (audiotestsrc at volume 0) is dead air and one
/// with a tone is not; the title that never changes stalls; the alerts are events (in --events),
/// run the command with their station, kind and details in its environment, and show in the
/// metrics (level, silence, title age, alert counters) that promtool accepts.
final class AirWatchTests: XCTestCase {
    func testASilentStationIsDeadAirAStuckTitleStallsAndTheCommandAndMetricsSayIt() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/quiet.mp3", format: .mp3, initialTitle: "Quiet - Nothing", stationName: "Quiet", amplitude: 0)
        _ = try await server.startSource(mount: "/tone.mp3", format: .mp3, initialTitle: "Tone - Sine", stationName: "Tone", amplitude: 0.5)
        let port = try FreePort.allocate()
        let directory = try TemporaryDirectory(self)
        let alerts = directory.file("alerts")
        try FileManager.default.createDirectory(atPath: alerts, withIntermediateDirectories: true)
        let config = """
            {"stations": [{"name": "Quiet", "url": "\(server.url(mount: "/quiet.mp3"))"}, {"name": "Tone", "url": "\(server.url(mount: "/tone.mp3"))"}],
             "plugins": [{"id": "org.oton.metrics", "path": "\(TestPaths.pluginLibrary("OtonMetrics"))", "enabled": true,
              "config": {"listen": "127.0.0.1:\(port)"}}]}
            """
        // Shortened: 4 s of silence is dead air (sampled every 1.3 s), 12 s on one title a stall.
        let command = #"env | grep '^OTON_ALERT_' | sort > "$ALERTS/$OTON_ALERT_STATION-$OTON_ALERT_KIND.env"; echo "said $OTON_ALERT_KIND""#
        let recorder = try RecordHarness(
            self, url: "--all",
            extra: [
                "--with-plugin", "org.oton.metrics", "--silence-after", "4s", "--title-stall-after", "12s", "--on-alert", command,
            ], environment: ["ALERTS": alerts], config: config)
        try recorder.start()

        let deadAir = recorder.waitForEvent("org.oton.alert", timeout: 60) { $0["kind"] == "dead-air" }
        XCTAssertEqual(deadAir?["station"], "Quiet", recorder.stderr)
        XCTAssertEqual(deadAir?["level_dbfs"], "-inf", "digital silence: \(deadAir ?? [:])")
        let stall = recorder.waitForEvent("org.oton.alert", timeout: 60) { $0["kind"] == "title-stall" }
        XCTAssertNotNil(stall, recorder.stderr)
        XCTAssertTrue(stall?["details"]?.contains("Nothing") == true || stall?["details"]?.contains("Sine") == true, "\(stall ?? [:])")

        // The command ran with the alert in its environment.
        let file = alerts + "/Quiet-dead-air.env"
        let ran = await poll(timeout: 30) {
            FileManager.default.fileExists(atPath: file) && ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains("DETAILS")
        }
        XCTAssertTrue(ran, recorder.stderr)
        let environment = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        XCTAssertTrue(environment.contains("OTON_ALERT_STATION=Quiet\n"), environment)
        XCTAssertTrue(environment.contains("OTON_ALERT_KIND=dead-air\n"), environment)
        XCTAssertTrue(environment.contains("OTON_ALERT_DETAILS=silent for "), environment)
        XCTAssertTrue(environment.contains("OTON_ALERT_LEVEL_DBFS=-inf"), environment)

        // The metrics: the silent station's level and silence, the tone's level, the title's age, the alert counted.
        var body = ""
        let scraped = await poll(timeout: 30) {
            body = (try? WebRemoteHTTPClient.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"))?.body ?? ""
            return (value(body, #"oton_station_alerts_total{station="Quiet",kind="dead-air"}"#) ?? 0) >= 1
                && (value(body, #"oton_station_level_dbfs{station="Tone"}"#) ?? -999) > -40
        }
        XCTAssertTrue(scraped, body)
        XCTAssertEqual(value(body, #"oton_station_level_dbfs{station="Quiet"}"#), -.infinity, body)
        XCTAssertGreaterThanOrEqual(value(body, #"oton_station_silence_seconds{station="Quiet"}"#) ?? 0, 4, body)
        XCTAssertEqual(value(body, #"oton_station_silence_seconds{station="Tone"}"#), 0, body)
        // A 0.5 sine: its RMS is about -9 dBFS.
        XCTAssertEqual(value(body, #"oton_station_level_dbfs{station="Tone"}"#) ?? 0, -9, accuracy: 3, body)
        XCTAssertGreaterThan(value(body, #"oton_station_title_age_seconds{station="Tone"}"#) ?? 0, 1, body)
        XCTAssertNil(value(body, #"oton_station_alerts_total{station="Tone",kind="dead-air"}"#), "a tone is not dead air:\n\(body)")
        XCTAssertTrue(recorder.stderr.contains("said dead-air"), "the command's output is logged: \(recorder.stderr)")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        if let result = try Promtool.checkMetrics(body, in: directory) {
            XCTAssertEqual(result.status, 0, result.stdout + result.stderr + "\n" + body)
        }
    }

    private func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap {
            let figure = $0.dropFirst(series.count + 1)
            return figure == "-Inf" ? -.infinity : Double(figure)
        }
    }

    private func poll(timeout: TimeInterval, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 500_000_000)
        }
        return condition()
    }
}
