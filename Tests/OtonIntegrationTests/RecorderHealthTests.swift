import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `/healthz` and `/readyz` on the metrics listener of a recorder of several stations: a live
/// station and one whose server is not there; the live one's source goes away and comes back.
final class RecorderHealthTests: XCTestCase {
    private func get(_ port: UInt16, _ path: String) -> (status: Int, body: String)? {
        guard let response = try? WebRemoteHTTPClient.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n") else { return nil }
        return (response.status, response.body)
    }

    private func poll(_ port: UInt16, _ path: String, timeout: TimeInterval = 60, until predicate: (Int, String) -> Bool) -> (status: Int, body: String)? {
        let deadline = Date().addingTimeInterval(timeout)
        var last: (status: Int, body: String)?
        while Date() < deadline {
            last = get(port, path)
            if let last, predicate(last.status, last.body) { return last }
            usleep(200_000)
        }
        return last
    }

    func testHealthFollowsTheShareOfStationsReceivingAndReadinessWaitsForEveryStation() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("source.mp3")
        try LiveSource.makeFile(file, seconds: 4)
        let station = try LiveSource(self, file: file, logDirectory: directory.file("sent"))
        let deadPort = try FreePort.allocate()  // nothing listens there
        let port = try FreePort.allocate()
        let config = """
            {"stations": [], "plugins": [{"id": "org.oton.metrics", "path": "\(TestPaths.pluginLibrary("OtonMetrics"))", "enabled": true,
              "config": {"listen": "127.0.0.1:\(port)", "health_share": 0.5, "health_stall_seconds": 3}}]}
            """
        let recorder = try RecordHarness(
            self, url: station.url, extra: ["http://127.0.0.1:\(deadPort)/down.mp3", "--with-plugin", "org.oton.metrics"],
            config: config)
        try recorder.start()
        let ready = poll(port, "/readyz") { status, _ in status == 200 }
        XCTAssertEqual(ready?.status, 200, "\(String(describing: ready)) \(recorder.stderr)")
        XCTAssertTrue(ready?.body.contains(#""untried":0"#) ?? false, ready?.body ?? "")
        let healthy = poll(port, "/healthz") { status, _ in status == 200 }
        XCTAssertEqual(healthy?.status, 200, "one of two stations receives: half, as asked: \(String(describing: healthy))")
        XCTAssertTrue(healthy?.body.contains(#""receiving":1"#) ?? false, healthy?.body ?? "")

        station.goDown(seconds: 20)
        let sick = poll(port, "/healthz") { status, _ in status == 503 }
        XCTAssertEqual(sick?.status, 503, "\(String(describing: sick))")
        let reason = (sick?.body).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["reason"] as? String
        XCTAssertEqual(reason, "0 of 2 stations receive; at least 1 must (50%)")
        let back = poll(port, "/healthz", timeout: 90) { status, _ in status == 200 }
        XCTAssertEqual(back?.status, 200, "the source came back: \(String(describing: back)) \(recorder.stderr)")
        XCTAssertEqual(get(port, "/metrics")?.status, 200, "the figures are still served beside the checks")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
    }

    /// Under systemd (`Type=notify`, `WatchdogSec`): READY once the stations are started, WATCHDOG
    /// pings with how many stations record, STOPPING on SIGTERM; for one station and for several.
    func testTheRecorderSpeaksSystemdsNotifyProtocol() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("source.mp3")
        try LiveSource.makeFile(file, seconds: 4)
        let station = try LiveSource(self, file: file, logDirectory: directory.file("sent"))
        let deadPort = try FreePort.allocate()
        for (stations, expected) in [([String](), "1 of 1 station recording"), (["http://127.0.0.1:\(deadPort)/down.mp3"], "1 of 2 stations recording")] {
            let socket = try NotifySocket(path: directory.file("notify-\(stations.count)"))
            let recorder = try RecordHarness(
                self, url: station.url, extra: stations, out: directory.file("out-\(stations.count)"),
                environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "1000000"])
            try recorder.start()
            let ready = try XCTUnwrap(socket.receive(timeout: 60), recorder.stderr)
            XCTAssertTrue(ready.contains("READY=1\n") && ready.contains("MAINPID=\(recorder.process.processIdentifier)\n"), ready)
            let pings = socket.receive(until: { $0.contains("WATCHDOG=1\n") && $0.contains("STATUS=\(expected)\n") }, timeout: 60)
            XCTAssertTrue(pings.last?.contains("STATUS=\(expected)") ?? false, "\(pings) \(recorder.stderr)")
            recorder.process.terminate()
            let stopping = socket.receive(until: { $0.contains("STOPPING=1") }, timeout: 30)
            XCTAssertTrue(stopping.last?.contains("STOPPING=1") ?? false, "\(stopping)")
            XCTAssertEqual(recorder.waitForExit(timeout: 60), 0, recorder.stderr)  // one SIGTERM: a second would exit at once
        }
    }
}
