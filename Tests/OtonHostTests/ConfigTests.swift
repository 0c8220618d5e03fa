import Foundation
import OtonHost
import OtonTestSupport
import XCTest

final class ConfigTests: XCTestCase {
    func testRepositoryPluginsJSONNamesOtonFMAsDefault() throws {
        let config = try ConfigLoader.load(file: TestPaths.root + "/plugins.json")
        let station = try XCTUnwrap(config.defaultStation)
        XCTAssertEqual(station.name, "Oton FM")
        XCTAssertEqual(station.url, "https://s4.radio.co/s696f24a77/listen")
        XCTAssertEqual(station.statusURL, "https://public.radio.co/stations/s696f24a77/status")
        XCTAssertFalse(config.plugins.isEmpty)
    }

    func testRelativePluginPathsAreResolvedAgainstTheFile() throws {
        let data = Data(
            #"{"plugins":[{"id":"org.a.b","path":"lib/libx.so"},{"id":"org.a.c","path":"liby.so","enabled":false,"config":{"k":[1,true,"s"]}}]}"#.utf8)
        let config = try ConfigLoader.parse(data, file: "/etc/oton/plugins.json")
        XCTAssertEqual(config.plugins[0].path, "/etc/oton/lib/libx.so")
        XCTAssertTrue(config.plugins[0].enabled)
        XCTAssertEqual(config.plugins[1].path, "liby.so", "a bare file name is searched for by the loader")
        XCTAssertFalse(config.plugins[1].enabled)
        XCTAssertEqual(config.plugins[1].config.jsonText, #"{"k":[1,true,"s"]}"#)
    }

    func testMalformedJSONNamesLineAndColumn() {
        let text = "{\n  \"stations\": [\n    {\"name\": \"A\" \"url\": \"http://x\"}\n  ]\n}\n"
        XCTAssertThrowsError(try ConfigLoader.parse(Data(text.utf8), file: "bad.json")) { error in
            guard case let ConfigError.syntax(file, line, column, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "bad.json")
            XCTAssertEqual(line, 3)
            XCTAssertEqual(column, 18, "where the comma is missing: at the quote of \"url\"")
            XCTAssertTrue("\(error)".contains("bad.json:3:18"), "\(error)")
        }
    }

    func testWrongShapesNameTheExactPlace() {
        let cases: [(String, String)] = [
            (#"{"plugins":[{"id":"org.a.b"}]}"#, "plugins[0].path: is missing"),
            (#"{"plugins":[{"id":"org.a.b","path":"x.so","enabled":"yes"}]}"#, "plugins[0].enabled: must be true or false"),
            (#"{"plugins":[{"id":"org.a.b","path":"x.so"},{"id":"org.a.b","path":"y.so"}]}"#, "plugins[1].id: \"org.a.b\" appears twice"),
            (#"{"stations":[{"name":"A","url":"not a url"}]}"#, "stations[0].url"),
            (#"{"stations":[{"name":"A","url":"http://a"}],"default_station":"B"}"#, "default_station: names \"B\""),
            (#"[1,2]"#, "top level"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ConfigLoader.parse(Data(text.utf8), file: "p.json"), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error) should contain \(expected)")
            }
        }
    }

    func testLookupOrder() {
        let environment = ["OTON_CONFIG": "/env/p.json", "XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"]
        XCTAssertEqual(ConfigLoader.candidates(explicit: "/flag.json", environment: environment, currentDirectory: "/cwd"), ["/flag.json"])
        XCTAssertEqual(
            ConfigLoader.candidates(explicit: nil, environment: environment, currentDirectory: "/cwd"),
            ["/env/p.json", "/xdg/oton/plugins.json", "/cwd/plugins.json"])
        XCTAssertEqual(
            ConfigLoader.candidates(explicit: nil, environment: ["HOME": "/home/u"], currentDirectory: "/cwd"),
            ["/home/u/.config/oton/plugins.json", "/cwd/plugins.json"])
    }

    func testMissingExplicitFileIsAnError() {
        XCTAssertThrowsError(try ConfigLoader.load(explicit: "/nonexistent/p.json", environment: [:], currentDirectory: "/")) { error in
            XCTAssertEqual(error as? ConfigError, .unreadable(file: "/nonexistent/p.json", reason: "no such file"))
        }
    }
}

/// Issue 27.11: a station may name the User-Agent its server is to see; it is a header value, so
/// only printable ASCII of a sane length gets in (no CR/LF to smuggle a header).
final class StationUserAgentConfigTests: XCTestCase {
    private func stations(_ userAgent: String) throws -> [Station] {
        let json = #"{"stations":[{"name":"A","url":"http://x/s","user_agent":"# + userAgent + #"}],"plugins":[]}"#
        return try ConfigLoader.parse(Data(json.utf8), file: "p.json").stations
    }

    private func station(_ userAgent: String) throws -> Station { try XCTUnwrap(stations(userAgent).first) }

    func testAStationsUserAgentIsKeptAndUsedForItsRequests() throws {
        let chosen = try station(#""WinampMPEG/5.66""#)
        XCTAssertEqual(chosen.userAgent, "WinampMPEG/5.66")
        XCTAssertEqual(chosen.requestUserAgent, "WinampMPEG/5.66")
        XCTAssertEqual(Station(name: "B", url: "http://y").requestUserAgent, OtonVersion.userAgent)
        XCTAssertTrue(OtonVersion.userAgent.hasPrefix("oton/"))
        XCTAssertNil(try station("null").userAgent)
    }

    func testAUserAgentThatIsNotAHeaderValueIsRefusedWithItsPlace() {
        for bad in [#""""#, #""a\r\nX-Injected: 1""#, #""\u001b[31m""#, #""Плеер""#, "\"" + String(repeating: "a", count: 201) + "\"", "42"] {
            XCTAssertThrowsError(try stations(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("stations[0].user_agent"), "\(bad): \(error)")
            }
        }
    }
}
