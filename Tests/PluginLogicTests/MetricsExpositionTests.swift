import MetricsLogic
import OtonTestSupport
import XCTest

/// The Prometheus text the metrics plugin serves: escaping, HELP/TYPE lines, order, numbers.
final class MetricsExpositionTests: XCTestCase {
    func testLabelValuesEscapeBackslashQuoteAndNewlineOnly() {
        XCTAssertEqual(Exposition.escapeLabelValue(#"a\b"#), #"a\\b"#)
        XCTAssertEqual(Exposition.escapeLabelValue(#"say "hi""#), #"say \"hi\""#)
        XCTAssertEqual(Exposition.escapeLabelValue("one\ntwo"), #"one\ntwo"#)
        XCTAssertEqual(Exposition.escapeLabelValue("Radio Ö\t{x}=1,é"), "Radio Ö\t{x}=1,é")
        XCTAssertEqual(Exposition.escapeHelp("a \"q\" \\ and\nmore"), #"a "q" \\ and\nmore"#)
    }

    func testFamiliesComeInOrderWithHelpAndTypeOnceAndSamplesAsGiven() {
        var out = Exposition()
        out.family("b_total", .counter, help: "B things.", [.init([("station", "Z")], 2), .init([("station", "A")], 1)])
        out.family("empty", .gauge, help: "Nothing.", [])
        out.family("a", .gauge, help: "A.", [.init([], 0.25)])
        XCTAssertEqual(
            out.text,
            """
            # HELP b_total B things.
            # TYPE b_total counter
            b_total{station="Z"} 2
            b_total{station="A"} 1
            # HELP a A.
            # TYPE a gauge
            a 0.25

            """)
    }

    func testNumbersAreWrittenAsPrometheusReadsThem() {
        XCTAssertEqual(Exposition.format(0), "0")
        XCTAssertEqual(Exposition.format(1_234_567_890_123), "1234567890123")
        XCTAssertEqual(Exposition.format(-3), "-3")
        XCTAssertEqual(Exposition.format(1.5), "1.5")
        XCTAssertEqual(Exposition.format(.infinity), "+Inf")
        XCTAssertEqual(Exposition.format(-.infinity), "-Inf")
        XCTAssertEqual(Exposition.format(.nan), "NaN")
        XCTAssertEqual(Double(Exposition.format(1e300)), 1e300)
    }

    func testAStationNameWithEveryHostileCharacterSurvivesPromtool() throws {
        let registry = MetricsRegistry()
        let meter = StationMeter(station: "Radio \"Quote\" \\ back\nslash", startedMonotonicNanoseconds: 0)
        meter.receive(size: 10, connection: 1, monotonicNanoseconds: 5)
        _ = registry.register(meter, hostVersion: "0.1.0")
        let text = registry.render(now: 1_000_000_005, process: ProcessFigures.read())
        XCTAssertTrue(text.contains(#"oton_station_received_bytes_total{station="Radio \"Quote\" \\ back\nslash"} 10"#), text)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("oton_station_") }.count, 7 + 5, "7 states and 5 figures:\n\(text)")
        guard let result = try Promtool.checkMetrics(text, in: TemporaryDirectory(self)) else {
            throw XCTSkip("promtool is not installed (Debian package prometheus)")
        }
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr + "\n" + text)
    }
}
