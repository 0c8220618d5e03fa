import Foundation
import XCTest

@testable import OtonHost

final class StationStatusParserTests: XCTestCase {
    private func data(_ json: String) -> Data { Data(json.utf8) }

    // MARK: radio.co

    private let radioCo = """
        {"status":"online","source":{"type":"automated"},
         "current_track":{"title":"Artist - Song","start_time":"2024-05-01T10:00:00+00:00",
           "artwork_url":"https://i.radio.co/small.jpg","artwork_url_large":"https://i.radio.co/large.jpg"},
         "history":[{"title":"Old - One"},{"title":"Older - Two"}],
         "logo_url":"https://i.radio.co/logo.png"}
        """

    func testRadioCo() throws {
        let status = try StationStatusParser.parseRadioCo(data(radioCo))
        var expected = StationStatus(
            title: "Artist - Song",
            artworkURL: URL(string: "https://i.radio.co/large.jpg"),
            logoURL: URL(string: "https://i.radio.co/logo.png"))
        // The catalogue's radio.co rule also reads when the track started (for timeshift and titles-check).
        expected.startedAt = Date(timeIntervalSince1970: 1_714_557_600)
        XCTAssertEqual(status, expected)
    }

    func testRadioCoFallsBackToSmallArtwork() throws {
        let json = #"{"status":"online","current_track":{"title":"A - B","artwork_url":"https://x.io/s.jpg","artwork_url_large":null}}"#
        XCTAssertEqual(try StationStatusParser.parseRadioCo(data(json)).artworkURL, URL(string: "https://x.io/s.jpg"))
    }

    func testRadioCoOfflineDropsTitle() throws {
        let json = #"{"status":"offline","current_track":{"title":"Stale - Song"},"logo_url":"https://x.io/l.png"}"#
        let status = try StationStatusParser.parseRadioCo(data(json))
        XCTAssertNil(status.title)
        XCTAssertEqual(status.logoURL, URL(string: "https://x.io/l.png"))
    }

    func testRadioCoWrongTypesBecomeNil() throws {
        let json = #"{"status":5,"current_track":{"title":{"x":1},"artwork_url":42,"artwork_url_large":[1]},"logo_url":true}"#
        XCTAssertEqual(try StationStatusParser.parseRadioCo(data(json)), StationStatus())
    }

    func testRadioCoCurrentTrackOfWrongType() throws {
        XCTAssertEqual(try StationStatusParser.parseRadioCo(data(#"{"current_track":"nope"}"#)), StationStatus())
    }

    func testRadioCoNumericTitleIsText() throws {
        XCTAssertEqual(try StationStatusParser.parseRadioCo(data(#"{"current_track":{"title":1999}}"#)).title, "1999")
    }

    func testRadioCoRejectsNonWebURLs() throws {
        let json = #"{"current_track":{"artwork_url":"javascript:alert(1)","artwork_url_large":"file:///etc/passwd"},"logo_url":"/relative.png"}"#
        let status = try StationStatusParser.parseRadioCo(data(json))
        XCTAssertNil(status.artworkURL)
        XCTAssertNil(status.logoURL)
    }

    func testRadioCoRootMustBeObject() {
        XCTAssertThrowsError(try StationStatusParser.parseRadioCo(data("[1,2,3]"))) { error in
            XCTAssertEqual(error as? StationStatusParseError, .unexpectedStructure("root object"))
        }
    }

    func testEmptyStringsBecomeNil() throws {
        XCTAssertNil(try StationStatusParser.parseRadioCo(data(#"{"current_track":{"title":"   "}}"#)).title)
    }

    // MARK: Garbage

    func testGarbageIsNotJSON() {
        for body in ["", "<html><body>502 Bad Gateway</body></html>", "{\"a\":", "\u{0}\u{1}"] {
            XCTAssertThrowsError(try StationStatusParser.parseRadioCo(data(body))) { error in
                XCTAssertEqual(error as? StationStatusParseError, .notJSON, body)
            }
        }
        XCTAssertThrowsError(try StationStatusParser.parseIcecast(Data([0xFF, 0xFE, 0x00]), streamURL: nil))
    }

    func testDeepNestingDoesNotCrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try StationStatusParser.parseIcecast(data(deep), streamURL: nil))
    }

    func testHugeBodyIsRejectedBeforeParsing() {
        let body = Data(count: 2 << 20)
        XCTAssertThrowsError(try StationStatusParser.parseRadioCo(body)) { error in
            XCTAssertEqual(error as? StationStatusParseError, .tooLarge(byteCount: 2 << 20, limit: 1 << 20))
        }
    }

    func testCustomLimit() {
        XCTAssertThrowsError(try StationStatusParser.parseRadioCo(data(radioCo), maxBytes: 10))
    }

    func testLongFieldsAreCapped() throws {
        let long = String(repeating: "a", count: 50_000)
        let status = try StationStatusParser.parseRadioCo(data(#"{"current_track":{"title":"\#(long)"},"logo_url":"https://x.io/\#(long)"}"#))
        XCTAssertEqual(status.title?.count, StationStatusParser.maxFieldCharacters)
        XCTAssertNil(status.logoURL)
    }

    // MARK: Icecast

    private let icecastSingle = """
        {"icestats":{"admin":"icemaster@localhost","host":"localhost","server_id":"Icecast 2.4.4",
         "source":{"audio_info":"bitrate=128","genre":"Rock","listeners":3,
           "listenurl":"http://localhost:8000/live","server_name":"Rock FM","title":"Band - Track"}}}
        """

    private let icecastMany = """
        {"icestats":{"source":[
          {"listenurl":"http://internal:8000/low","server_name":"Low","title":"Low - Title"},
          {"listenurl":"http://internal:8000/high","server_name":"High","title":"High - Title","artist":"Ignored?"},
          {"listenurl":"http://internal:8000/ogg","server_name":"Ogg","title":"Song","artist":"Singer"},
          "garbage", 17
        ]}}
        """

    func testIcecastSingleSourceObject() throws {
        let status = try StationStatusParser.parseIcecast(data(icecastSingle), streamURL: URL(string: "https://radio.example/live"))
        XCTAssertEqual(status, StationStatus(title: "Band - Track", stationName: "Rock FM"))
    }

    func testIcecastSingleSourceIsUsedEvenIfPathDiffers() throws {
        let status = try StationStatusParser.parseIcecast(data(icecastSingle), streamURL: URL(string: "https://radio.example/other"))
        XCTAssertEqual(status.stationName, "Rock FM")
    }

    func testIcecastPicksSourceByPathIgnoringHost() throws {
        let status = try StationStatusParser.parseIcecast(data(icecastMany), streamURL: URL(string: "https://cdn.example.com:443/low/"))
        XCTAssertEqual(status, StationStatus(title: "Low - Title", stationName: "Low"))
    }

    func testIcecastCombinesArtistAndTitle() throws {
        let status = try StationStatusParser.parseIcecast(data(icecastMany), streamURL: URL(string: "http://x/ogg"))
        XCTAssertEqual(status.title, "Singer - Song")
    }

    func testIcecastDoesNotDuplicateArtistAlreadyInTitle() throws {
        let json = #"{"icestats":{"source":{"listenurl":"http://x/a","title":"Singer - Song","artist":"Singer"}}}"#
        XCTAssertEqual(try StationStatusParser.parseIcecast(data(json), streamURL: nil).title, "Singer - Song")
    }

    func testIcecastNoMatchAmongSeveralThrows() {
        XCTAssertThrowsError(try StationStatusParser.parseIcecast(data(icecastMany), streamURL: URL(string: "http://x/missing"))) { error in
            XCTAssertEqual(error as? StationStatusParseError, .noMatchingSource(streamPath: "/missing"))
        }
    }

    func testIcecastSeveralSourcesWithoutStreamURLThrows() {
        XCTAssertThrowsError(try StationStatusParser.parseIcecast(data(icecastMany), streamURL: nil))
    }

    func testIcecastWithoutSourcesThrows() {
        XCTAssertThrowsError(try StationStatusParser.parseIcecast(data(#"{"icestats":{"host":"x"}}"#), streamURL: nil)) { error in
            XCTAssertEqual(error as? StationStatusParseError, .noMatchingSource(streamPath: nil))
        }
    }

    func testIcecastMissingIcestatsThrows() {
        XCTAssertThrowsError(try StationStatusParser.parseIcecast(data(#"{"status":"ok"}"#), streamURL: nil)) { error in
            XCTAssertEqual(error as? StationStatusParseError, .unexpectedStructure("icestats"))
        }
        XCTAssertThrowsError(try StationStatusParser.parseIcecast(data(#"{"icestats":[]}"#), streamURL: nil))
    }

    func testIcecastPlaceholderNameIsIgnored() throws {
        let json = #"{"icestats":{"source":{"listenurl":"http://x/a","server_name":"Unspecified name","title":7}}}"#
        let status = try StationStatusParser.parseIcecast(data(json), streamURL: nil)
        XCTAssertNil(status.stationName)
        XCTAssertEqual(status.title, "7")
    }

    func testIcecastBadListenURLIsSkipped() throws {
        let json = #"{"icestats":{"source":[{"listenurl":5,"title":"bad"},{"listenurl":"http://x/b","title":"good"}]}}"#
        XCTAssertEqual(try StationStatusParser.parseIcecast(data(json), streamURL: URL(string: "http://y/b")).title, "good")
    }

    func testParseDispatchesByFormat() throws {
        XCTAssertEqual(try StationStatusParser.parse(data(radioCo), format: .radioCo).title, "Artist - Song")
        XCTAssertEqual(try StationStatusParser.parse(data(icecastSingle), format: .icecast).title, "Band - Track")
    }

    func testJSONValueText() {
        XCTAssertEqual(JSONValue.number(1.5).text, "1.5")
        XCTAssertEqual(JSONValue.number(-3).text, "-3")
        XCTAssertNil(JSONValue.bool(true).text)
        XCTAssertNil(JSONValue.null.text)
        XCTAssertNil(JSONValue.number(.infinity).text)
        XCTAssertEqual(JSONValue.number(1e20).text, "1e+20")
    }
}
