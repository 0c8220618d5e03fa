import Foundation
import XCTest

@testable import OtonHost

final class StationStatusRequestTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000.1234)

    private func url(_ base: String) -> String {
        StationStatusRequest.url(base: URL(string: base)!, now: now).absoluteString
    }

    func testAddsQueryWhenThereIsNone() {
        XCTAssertEqual(
            url("https://public.radio.co/stations/s123/status"),
            "https://public.radio.co/stations/s123/status?_=1700000000123")
    }

    func testAppendsToExistingQuery() {
        XCTAssertEqual(
            url("http://host:8000/status-json.xsl?mount=/live"),
            "http://host:8000/status-json.xsl?mount=/live&_=1700000000123")
    }

    func testEmptyQuery() {
        XCTAssertEqual(url("https://x.io/status?"), "https://x.io/status?_=1700000000123")
    }

    func testReplacesPreviousCacheBuster() {
        XCTAssertEqual(url("https://x.io/status?a=1&_=5&b=2"), "https://x.io/status?a=1&b=2&_=1700000000123")
    }

    func testKeepsSimilarlyNamedParameters() {
        XCTAssertEqual(url("https://x.io/status?__=1&_x=2"), "https://x.io/status?__=1&_x=2&_=1700000000123")
    }

    func testKeepsPercentEncodingAsIs() {
        XCTAssertEqual(url("https://x.io/s?q=a%20b%26c"), "https://x.io/s?q=a%20b%26c&_=1700000000123")
    }

    func testKeepsFragment() {
        XCTAssertEqual(url("https://x.io/s?a=1#top"), "https://x.io/s?a=1&_=1700000000123#top")
    }

    func testRepeatedCallsDoNotGrowTheURL() {
        let first = StationStatusRequest.url(base: URL(string: "https://x.io/s")!, now: now)
        let second = StationStatusRequest.url(base: first, now: now.addingTimeInterval(1))
        XCTAssertEqual(second.absoluteString, "https://x.io/s?_=1700000001123")
    }

    func testDifferentTimesGiveDifferentURLs() {
        let base = URL(string: "https://x.io/s")!
        XCTAssertNotEqual(
            StationStatusRequest.url(base: base, now: now),
            StationStatusRequest.url(base: base, now: now.addingTimeInterval(0.01)))
    }

    func testOddDatesDoNotCrash() {
        let base = URL(string: "https://x.io/s")!
        _ = StationStatusRequest.url(base: base, now: .distantPast)
        _ = StationStatusRequest.url(base: base, now: .distantFuture)
        _ = StationStatusRequest.url(base: base, now: Date(timeIntervalSince1970: .nan))
    }
}
