import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton stations search`, `add --from-search` and their failures against a local
/// directory server that speaks Radio Browser's JSON.
final class StationDirectoryTests: XCTestCase {
    private var directory: FakeStationDirectory!
    private var home: TemporaryDirectory!

    static let jazz = """
        {"stationuuid": "11111111-aaaa-4bbb-8ccc-000000000001", "name": "Jazz One", "url": "http://127.0.0.1:9/one.pls",
         "url_resolved": "http://127.0.0.1:9/one.mp3", "homepage": "https://one.example", "tags": "jazz,smooth",
         "countrycode": "DE", "country": "Germany", "language": "german", "codec": "MP3", "bitrate": 128, "lastcheckok": 1}
        """
    static let evil = """
        {"stationuuid": "11111111-aaaa-4bbb-8ccc-000000000002", "name": "Evil\\u001b[31m Jazz\\u0007", "url": "http://127.0.0.1:9/two",
         "tags": "jazz", "countrycode": "FR", "codec": "AAC", "bitrate": "64", "lastcheckok": 0}
        """
    static let nameless = #"{"stationuuid": "11111111-aaaa-4bbb-8ccc-000000000003", "url": "http://127.0.0.1:9/three"}"#
    static let sparse = #"{"name": "Bare Jazz", "url": "https://127.0.0.1:9/bare"}"#

    override func setUp() async throws {
        directory = try FakeStationDirectory(stations: [Self.jazz, Self.nameless, Self.evil, Self.sparse])
        home = try TemporaryDirectory(self)
    }

    override func tearDown() async throws {
        directory?.stop()
    }

    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.file("config")
        environment["XDG_CACHE_HOME"] = home.file("cache")
        environment["XDG_RUNTIME_DIR"] = home.file("run")
        environment["OTON_CONFIG"] = nil
        return environment
    }

    private func oton(_ arguments: [String]) throws -> ProcessResult {
        try FileManager.default.createDirectory(atPath: home.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return try runProcess(TestPaths.oton, arguments, environment: environment, currentDirectory: home.path)
    }

    func testSearchShowsCleanResultsAndAddFromSearchKeepsOne() throws {
        let search = try oton(["stations", "search", "jazz", "--country", "de", "--limit", "5", "--server", directory.url])
        XCTAssertEqual(search.status, 0, search.stderr)
        let lines = search.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, "a header and three stations:\n\(search.stdout)")
        XCTAssertTrue(lines[0].hasPrefix("#  NAME"), lines[0])
        XCTAssertTrue(
            lines[1].hasPrefix("1  Jazz One") && lines[1].contains("DE") && lines[1].contains("MP3")
                && lines[1].contains("128") && lines[1].contains("yes") && lines[1].hasSuffix("jazz,smooth"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("2  Evil[31m Jazz ") && lines[2].contains(" no "), "control characters are gone: \(lines[2])")
        XCTAssertTrue(lines[3].hasPrefix("3  Bare Jazz") && lines[3].contains(" ? "), "missing fields show as unknown: \(lines[3])")
        XCTAssertFalse(search.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        XCTAssertTrue(search.stderr.contains("skipped 1 entry"), search.stderr)

        let request = try XCTUnwrap(directory.http.requests(path: "/json/stations/search").last)
        XCTAssertEqual(request.query["name"], "jazz")
        XCTAssertEqual(request.query["countrycode"], "DE")
        XCTAssertEqual(request.query["limit"], "5")
        XCTAssertEqual(request.query["order"], "votes")
        XCTAssertEqual(request.headers["user-agent"], "oton/\(OtonVersion.current) (Linux internet-radio player)")

        let json = try oton(["stations", "search", "jazz", "--format", "json", "--server", directory.url])
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], json.stdout)
        XCTAssertEqual(list.map { $0["name"] as? String }, ["Jazz One", "Evil[31m Jazz", "Bare Jazz"])
        XCTAssertEqual(list[0]["play_url"] as? String, "http://127.0.0.1:9/one.mp3")
        XCTAssertEqual(list[1]["online"] as? Bool, false)
        XCTAssertTrue(list[2]["online"] is NSNull)

        let config = home.file("config/oton/plugins.json")
        let add = try oton(["stations", "add", "--from-search", "1"])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stderr.contains("created \(config) from the built-in default"), add.stderr)
        let added = try XCTUnwrap(try ConfigLoader.load(file: config).station(named: "Jazz One"))
        XCTAssertEqual(added, Station(name: "Jazz One", url: "http://127.0.0.1:9/one.mp3", homepage: "https://one.example"))
        let renamed = try oton(["stations", "add", "--from-search", "3", "My Bare"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertEqual(try ConfigLoader.load(file: config).stations.map(\.name), ["Oton FM", "Jazz One", "My Bare"])
        let again = try oton(["stations", "add", "--from-search", "1"])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("already in"), again.stderr)
        let outside = try oton(["stations", "add", "--from-search", "4"])
        XCTAssertEqual(outside.status, 2)
        XCTAssertTrue(outside.stderr.contains("has results 1 to 3"), outside.stderr)
        XCTAssertEqual(try ConfigLoader.load(file: config).stations.count, 3, "refusals change nothing")

        // set-url: a new stream URL for a station (any case); a bad URL or an unknown name changes nothing.
        let setURL = try oton(["stations", "set-url", "my bare", "http://127.0.0.1:9/bare2.mp3"])
        XCTAssertEqual(setURL.status, 0, setURL.stderr)
        XCTAssertEqual(try ConfigLoader.load(file: config).station(named: "My Bare")?.url, "http://127.0.0.1:9/bare2.mp3")
        let badURL = try oton(["stations", "set-url", "My Bare", "ftp://127.0.0.1/x"])
        XCTAssertNotEqual(badURL.status, 0)
        XCTAssertTrue(badURL.stderr.contains("ftp"), badURL.stderr)
        let unknown = try oton(["stations", "set-url", "Nope FM", "http://127.0.0.1:9/nope.mp3"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no station named"), unknown.stderr)
        XCTAssertEqual(try ConfigLoader.load(file: config).station(named: "My Bare")?.url, "http://127.0.0.1:9/bare2.mp3")
    }

    func testOddAnswersEndWithAClearMessage() throws {
        let cases: [(query: String, message: String)] = [
            ("nothing", "has no station matching \"nothing\""),
            ("broken", "answered HTTP 500"),
            ("garbage", "sent an answer oton cannot read: not JSON"),
            ("bomb", "sent too much: the body is larger than 4194304 bytes"),
        ]
        for (query, message) in cases {
            let result = try oton(["stations", "search", query, "--server", directory.url])
            XCTAssertEqual(result.status, 1, query)
            XCTAssertTrue(result.stderr.contains(message), "\(query): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", query)
        }
        let huge = try oton(["stations", "search", "huge", "--limit", "3", "--server", directory.url])
        XCTAssertEqual(huge.status, 0, huge.stderr)
        XCTAssertEqual(huge.stdout.split(separator: "\n").count, 4, "a 20 000-entry answer is cut to the limit")

        let started = Date()
        let slow = try oton(["stations", "search", "slow", "--timeout", "1", "--server", directory.url])
        let elapsed = Date().timeIntervalSince(started)
        directory.release()
        XCTAssertEqual(slow.status, 1)
        XCTAssertTrue(slow.stderr.contains("did not answer in time"), slow.stderr)
        XCTAssertLessThan(elapsed, 6, "the timeout holds")

        let dead = try oton(["stations", "search", "jazz", "--server", "http://127.0.0.1:\(try FreePort.allocate())"])
        XCTAssertEqual(dead.status, 1)
        XCTAssertTrue(dead.stderr.contains("could not be reached"), dead.stderr)
        // A name that cannot resolve (.invalid never does, as when offline): no network, exit 1, and the
        // fix offered is the network, not the server that just failed.
        let offline = try oton(["stations", "search", "jazz", "--server", "https://directory.invalid"])
        XCTAssertEqual(offline.status, 1, "README: 1 when the directory cannot be reached: \(offline.stderr)")
        XCTAssertTrue(offline.stderr.contains("cannot be reached: there seems to be no network"), offline.stderr)
        XCTAssertTrue(offline.stderr.contains("check the network connection"), offline.stderr)
        XCTAssertFalse(offline.stderr.contains("--server"), offline.stderr)
        let bad = try oton(["stations", "search", "jazz", "--server", "radio-browser.info"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("is not a directory server URL"), bad.stderr)
    }

    func testTheServerCanComeFromPluginsJSON() throws {
        let config = try home.write("custom.json", #"{"directory_server": "\#(directory.url)", "stations": [], "plugins": []}"#)
        let search = try oton(["stations", "search", "jazz", "--config", config])
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertFalse(directory.http.requests(path: "/json/stations/search").isEmpty)
    }
}
