import MetricsLogic
import OtonJSON
import XCTest

/// The metrics plugin's config, its routes, and the process figures read from /proc.
final class MetricsConfigTests: XCTestCase {
    func testDefaultsAndEveryKey() throws {
        XCTAssertEqual(try MetricsConfig.parse("{}").listen, ListenAddress(host: "127.0.0.1", port: 9464))
        XCTAssertNil(try MetricsConfig.parse("{}").station)
        let config = try MetricsConfig.parse(#"{"listen": "0.0.0.0:9100", "station": "Jazz 24"}"#)
        XCTAssertEqual(config.listen, ListenAddress(host: "0.0.0.0", port: 9100))
        XCTAssertTrue(config.listen.isEveryInterface)
        XCTAssertEqual(config.station, "Jazz 24")
    }

    func testUnknownKeysAndBadValuesAreRefusedWithTheKeyNamed() {
        let cases: [(String, String)] = [
            (#"{"port": 9464}"#, "config.port is not a metrics setting; known: health_share, health_stall_seconds, listen, station"),
            (#"{"health_share": 1.5}"#, "config.health_share must be a share of the stations from 0 to 1"),
            (#"{"listen": "localhost:9464"}"#, "config.listen must use an IPv4 address such as 127.0.0.1 or 0.0.0.0 (got \"localhost\")"),
            (#"{"listen": "127.0.0.1"}"#, "config.listen must be ADDRESS:PORT, e.g. \"127.0.0.1:9464\" (got \"127.0.0.1\")"),
            (#"{"listen": "127.0.0.1:70000"}"#, "config.listen must be ADDRESS:PORT"),
            (#"{"listen": 9464}"#, "config.listen"),
            (#"{"station": ""}"#, "config.station"),
            ("[]", "config must be a JSON object"),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try MetricsConfig.parse(json), json) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "\(json): \(error)")
            }
        }
    }

    private let listen = ListenAddress(host: "127.0.0.1", port: 9464)

    private func route(_ method: String, _ url: String, host: String? = "127.0.0.1:9464") -> MetricsRoute {
        MetricsRoute.decide(method: method, url: url, host: host, listen: listen)
    }

    /// Issue 39, N9: a foreign Host got 200 (DNS rebinding let any page read the figures).
    func testARequestWhoseHostIsNotThisListenerIsRefused() {
        for host in ["evil.example:9464", "127.0.0.1:80", "10.0.0.5:9464", nil, "localhost"] {
            guard case .refuse(403, _) = route("GET", "/metrics", host: host) else { return XCTFail("\(host ?? "no Host")") }
        }
        for host in ["127.0.0.1:9464", "localhost:9464", "[::1]:9464"] {
            XCTAssertEqual(route("GET", "/metrics", host: host), .metrics, host)
        }
        let everywhere = ListenAddress(host: "0.0.0.0", port: 9464)
        XCTAssertEqual(
            MetricsRoute.decide(method: "GET", url: "/metrics", host: "192.0.2.7:9464", listen: everywhere), .metrics,
            "on every interface a scraper names the machine by its address")
    }

    func testOnlyGetOrHeadOfMetricsIsServed() {
        XCTAssertEqual(route("GET", "/metrics"), .metrics)
        XCTAssertEqual(route("HEAD", "/metrics"), .metrics)
        XCTAssertEqual(route("GET", "/metrics?x=1"), .metrics)
        guard case .refuse(405, _) = route("POST", "/metrics") else { return XCTFail("POST") }
        for url in ["/", "/metrics/", "/Metrics", "/metricsx", "../metrics"] {
            guard case .refuse(404, _) = route("GET", url) else { return XCTFail(url) }
        }
    }

    func testProcFilesAreParsedByTheirFields() throws {
        // A command name with a space and a parenthesis, as /proc/self/stat may show it.
        let stat = "4242 (my (od)d prog) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 150 0 0 20 0 7 0 1000 52428800 2560 18446744073709551615"
        let figures = try XCTUnwrap(
            ProcessFigures.parse(
                stat: stat, systemStat: "cpu  1 2 3\nbtime 1700000000\nprocesses 9\n",
                limits:
                    "Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 524288               files     \n",
                openFileDescriptors: 12, ticksPerSecond: 100, pageSize: 4096))
        XCTAssertEqual(figures.cpuSeconds, 4.0)
        XCTAssertEqual(figures.startTimeSeconds, 1_700_000_010)
        XCTAssertEqual(figures.virtualBytes, 52_428_800)
        XCTAssertEqual(figures.residentBytes, 2560 * 4096)
        XCTAssertEqual(figures.openFileDescriptors, 12)
        XCTAssertEqual(figures.maxFileDescriptors, 1024)
        XCTAssertNil(ProcessFigures.parse(stat: "garbage", systemStat: "", limits: "", openFileDescriptors: 0, ticksPerSecond: 100, pageSize: 4096))
    }

    func testThisProcessesFiguresAreRead() throws {
        // A process just started may not have used a whole clock tick yet: work until it has (bounded).
        var spin = 0.0
        let until = Date().addingTimeInterval(5)
        while (ProcessFigures.read()?.cpuSeconds ?? 0) == 0, Date() < until { for index in 0..<100_000 { spin += Double(index) } }
        let before = ProcessFigures.read()
        let fd = open("/dev/null", O_RDONLY)
        defer { close(fd) }
        let figures = try XCTUnwrap(ProcessFigures.read())
        XCTAssertGreaterThan(figures.residentBytes, 1_000_000, "a Swift test process is larger than 1 MB")
        XCTAssertGreaterThan(figures.cpuSeconds, 0, "\(spin)")
        XCTAssertEqual(figures.startTimeSeconds, Date().timeIntervalSince1970, accuracy: 24 * 3600, "started today")
        XCTAssertLessThanOrEqual(figures.startTimeSeconds, Date().timeIntervalSince1970 + 1)
        // Other threads of the test process (XCTest's, libdispatch's) may open or close one meanwhile.
        XCTAssertGreaterThanOrEqual(figures.openFileDescriptors, (before?.openFileDescriptors ?? 0), "the descriptor just opened is counted")
        XCTAssertGreaterThan(figures.openFileDescriptors, 0)
        XCTAssertNotNil(figures.maxFileDescriptors)
    }
}
