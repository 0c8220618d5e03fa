import MetricsLogic
import OtonJSON
import XCTest

/// The recorder's health checks from its stations' figures: /healthz by the share receiving, /readyz
/// once every station was tried.
final class HealthVerdictTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    private func station(_ name: String, state: String?, lastByteAt: Int64?) -> StationFigures {
        var figures = StationFigures(station: name, startedMonotonicNanoseconds: 0)
        if let state { figures.apply(name: "state", fields: ["state": state], isReplay: false) }
        if let lastByteAt { figures.receive(size: 100, connection: 1, monotonicNanoseconds: lastByteAt) }
        return figures
    }

    func testHealthyWhileTheShareReceives() throws {
        let now = 100 * second
        let stations = [
            station("a", state: "playing", lastByteAt: now - second), station("b", state: "playing", lastByteAt: now - 40 * second),
            station("c", state: "error", lastByteAt: nil), station("d", state: "connecting", lastByteAt: nil),
        ]
        let half = HealthVerdict.health(stations, rules: .init(share: 0.25, stallSeconds: 30), now: now)
        XCTAssertEqual(half.status, 200, half.body)
        let most = HealthVerdict.health(stations, rules: .init(share: 0.5, stallSeconds: 30), now: now)
        XCTAssertEqual(most.status, 503)
        let body = try JSONValue.parse(Data(most.body.utf8))
        XCTAssertEqual(body["reason"]?.stringValue, "1 of 4 stations receive; at least 2 must (50%)", "b is silent for 40 s: not receiving")
        XCTAssertEqual(body["receiving"]?.intValue, 1)
        XCTAssertEqual(HealthVerdict.health(stations, rules: .init(share: 0.5, stallSeconds: 60), now: now).status, 200, "within 60 s b receives")
        XCTAssertEqual(HealthVerdict.health([], rules: .init(), now: now).status, 503, "no station is not healthy")
    }

    func testReadyOnceEveryStationWasTried() {
        let tried = [station("a", state: "playing", lastByteAt: 5), station("c", state: "error", lastByteAt: nil)]
        XCTAssertEqual(HealthVerdict.readiness(tried).status, 200)
        let waiting = HealthVerdict.readiness(tried + [station("d", state: "connecting", lastByteAt: nil)])
        XCTAssertEqual(waiting.status, 503)
        XCTAssertTrue(waiting.body.contains("1 of 3 stations not tried yet"), waiting.body)
    }

    func testTheRoutes() {
        let listen = ListenAddress(host: "127.0.0.1", port: 9464)
        XCTAssertEqual(MetricsRoute.decide(method: "GET", url: "/healthz", host: "127.0.0.1:9464", listen: listen), .health)
        XCTAssertEqual(MetricsRoute.decide(method: "HEAD", url: "/readyz?x", host: "127.0.0.1:9464", listen: listen), .readiness)
        guard case .refuse(405, _) = MetricsRoute.decide(method: "POST", url: "/healthz", host: "127.0.0.1:9464", listen: listen) else { return XCTFail() }
        guard case .refuse(403, _) = MetricsRoute.decide(method: "GET", url: "/healthz", host: "evil.example", listen: listen) else { return XCTFail() }
    }
}
