import XCTest

@testable import OtonHost

/// The station list behind `oton ctl next|prev|station`, the keys and MPRIS: with three stations,
/// next and prev go different ways (two stations cannot tell them apart), and a URL switched to
/// stands after the station it was left from, so one `prev` goes back there.
final class StationListTests: XCTestCase {
    private let one = Station(name: "One FM", url: "http://127.0.0.1:8000/1.mp3")
    private let two = Station(name: "Two FM", url: "http://127.0.0.1:8000/2.mp3")
    private let three = Station(name: "Three FM", url: "http://127.0.0.1:8000/3.mp3")
    private let extra = Station(name: "127.0.0.1", url: "http://127.0.0.1:9/gone.mp3")

    private var list: StationList { StationList(configured: [one, two, three], started: one) }

    func testNextAndPrevGoOppositeWaysAndWrap() {
        XCTAssertEqual(list.station(after: two, step: 1), three)
        XCTAssertEqual(list.station(after: two, step: -1), one)
        XCTAssertEqual(list.station(after: three, step: 1), one, "after the last comes the first")
        XCTAssertEqual(list.station(after: one, step: -1), three, "before the first comes the last")
    }

    func testAStartedURLOutsideTheListComesFirst() {
        let started = StationList(configured: [one, two], started: extra)
        XCTAssertEqual(started.stations, [extra, one, two])
        XCTAssertEqual(started.station(after: extra, step: 1), one)
    }

    func testAnUnlistedStationStandsAfterTheStationItWasLeftFrom() {
        let placed = list.placing(.init(station: extra, leftFrom: two))
        XCTAssertEqual(placed.stations, [one, two, extra, three])
        XCTAssertEqual(placed.station(after: extra, step: -1), two, "prev goes back to where the listener was")
        XCTAssertEqual(placed.station(after: extra, step: 1), three)
        XCTAssertEqual(try placed.find("3"), extra, "numbers follow the places `oton ctl stations` shows")
        XCTAssertEqual(list.placing(.init(station: two, leftFrom: one)), list, "a listed station keeps its place")
        XCTAssertEqual(
            list.placing(.init(station: extra, leftFrom: Station(name: "Gone", url: "http://gone/"))), list,
            "left from a station a reload removed: no place, so it counts as before the first")
        XCTAssertEqual(list.station(after: extra, step: 1), one)
    }

    func testFindTakesNumbersNamesAndURLsAndSaysWhatIsWrong() throws {
        XCTAssertEqual(try list.find("2"), two)
        XCTAssertEqual(try list.find("three fm"), three)
        XCTAssertEqual(try list.find(one.url), one, "a listed URL is that station, with its name")
        XCTAssertEqual(try list.find("https://example.org/live.m3u").name, "example.org")
        XCTAssertThrowsError(try list.find("4")) { XCTAssertTrue("\($0)".contains("no station number 4; there are 3"), "\($0)") }
        XCTAssertThrowsError(try list.find("Nowhere")) {
            XCTAssertTrue("\($0)".contains("no station named \"Nowhere\" (known: One FM, Two FM, Three FM)"), "\($0)")
        }
    }

    /// Real stations have names that are numbers ("1984", "538"): the name wins, the number still works.
    func testANameThatIsANumberFindsThatStationBeforeAnyNumber() throws {
        let numbered = Station(name: "1", url: "http://127.0.0.1:8000/named-one.mp3")
        let year = Station(name: "1984", url: "http://127.0.0.1:8000/1984.mp3")
        let list = StationList(configured: [one, numbered, year], started: one)
        XCTAssertEqual(try list.find("1"), numbered, "the station called \"1\", not the first one")
        XCTAssertEqual(try list.find("1984"), year)
        XCTAssertEqual(try list.find("3"), year, "numbers still find stations")
        XCTAssertEqual(try list.find(" 2 "), numbered)
    }
}
