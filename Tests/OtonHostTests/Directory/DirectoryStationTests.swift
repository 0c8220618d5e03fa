import Foundation
import OtonHost
import XCTest

/// The directory's answers are written by anyone: every field is checked before use.
final class DirectoryStationTests: XCTestCase {
    private func station(_ json: String) throws -> DirectoryStation? {
        DirectoryStation(json: try JSONValue.parse(Data(json.utf8)))
    }

    func testAFullEntryIsRead() throws {
        let entry = try XCTUnwrap(
            try station(
                """
                {"stationuuid": "96062a7b-0601-11e8-ae97-52543be04c81", "name": "  Jazz FM ", "url": "http://a.example/pls",
                 "url_resolved": "https://b.example/stream", "homepage": "https://jazz.example", "favicon": "https://jazz.example/i.png",
                 "tags": "jazz, smooth jazz,,", "countrycode": "GB", "country": "The United Kingdom", "language": "english",
                 "codec": "MP3", "bitrate": 128, "lastcheckok": 1, "votes": 12}
                """))
        XCTAssertEqual(
            entry,
            DirectoryStation(
                uuid: "96062a7b-0601-11e8-ae97-52543be04c81", name: "Jazz FM", url: "http://a.example/pls", resolvedURL: "https://b.example/stream",
                homepage: "https://jazz.example", favicon: "https://jazz.example/i.png", tags: ["jazz", "smooth jazz"], countryCode: "GB",
                country: "The United Kingdom", language: "english", codec: "MP3", bitrate: 128, lastCheckOK: true))
        XCTAssertEqual(entry.playURL, "https://b.example/stream")
        XCTAssertEqual(entry.station, Station(name: "Jazz FM", url: "https://b.example/stream", homepage: "https://jazz.example"))
        XCTAssertEqual(DirectoryStation(json: entry.json), entry, "the saved search reads back the same")
    }

    func testOddEntriesAreCleanedOrSkipped() throws {
        XCTAssertNil(try station(#"{"url": "http://a.example/"}"#), "no name")
        XCTAssertNil(try station(#"{"name": "X"}"#), "no URL")
        XCTAssertNil(try station(#"{"name": "X", "url": "javascript:alert(1)"}"#), "not http(s)")
        XCTAssertNil(try station(#"{"name": "\u0007\u001b", "url": "http://a.example/"}"#), "nothing printable in the name")
        XCTAssertNil(try station(#"[1, 2]"#))
        let odd = try XCTUnwrap(
            try station(
                """
                {"name": "Evil\\u001b[2J\\u0000 \\u202eFM\\n", "url": "http://a.example/ x", "url_resolved": "http://b.example/",
                 "stationuuid": "../../admin", "tags": 42, "bitrate": "320", "lastcheckok": true, "codec": "", "homepage": "ftp://x/",
                 "countrycode": null}
                """))
        XCTAssertEqual(odd.name, "Evil[2J FM", "control characters and direction overrides are dropped")
        XCTAssertEqual(odd.url, "http://b.example/", "a URL with a space is unusable; the resolved one stands in")
        XCTAssertNil(odd.uuid, "a UUID that is not hex and dashes never reaches a URL path")
        XCTAssertEqual(odd.tags, ["42"])
        XCTAssertEqual(odd.bitrate, 320)
        XCTAssertEqual(odd.lastCheckOK, true)
        XCTAssertNil(odd.codec)
        XCTAssertNil(odd.homepage)
        XCTAssertNil(odd.countryCode)
        let long = try XCTUnwrap(
            try station(#"{"name": "\#(String(repeating: "ä", count: 5000))", "url": "http://a.example/", "bitrate": 0, "lastcheckok": 0}"#))
        XCTAssertEqual(long.name.count, 200)
        XCTAssertNil(long.bitrate, "0 means unknown")
        XCTAssertEqual(long.lastCheckOK, false)
    }

    func testTheQueryEncodesEveryFilter() {
        let query = DirectorySearchQuery(name: "café & co/=?", tag: "jazz", countryCode: "de", language: "german", codec: "AAC+", limit: 9999)
        XCTAssertEqual(query.limit, DirectorySearchQuery.maxLimit)
        XCTAssertEqual(
            query.path,
            "/json/stations/search?name=caf%C3%A9%20%26%20co%2F%3D%3F&tag=jazz&countrycode=DE&language=german"
                + "&codec=AAC%2B&limit=500&hidebroken=true&order=votes&reverse=true")
        XCTAssertEqual(DirectorySearchQuery(name: "x", limit: 0).limit, 1)
    }

    func testServersMustBeWebURLs() {
        for bad in ["", "de1.api.radio-browser.info", "ftp://x", "file:///etc/passwd"] {
            XCTAssertThrowsError(try StationDirectoryClient(server: bad), bad) { error in
                XCTAssertEqual(error as? DirectoryError, .badServer(bad))
            }
        }
        XCTAssertEqual(try StationDirectoryClient(server: "http://127.0.0.1:9//").server, "http://127.0.0.1:9")
    }
}
