import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The web remote as a listener meets it, in a real headless chromium whose language is Russian
/// (Tests/Fixtures/web_remote_look.py), at 1280×800 and 390×844, on a station with no cover and no
/// logo: the artwork plugin's built-in picture is shown, the page is tinted with the colour the
/// artwork event published, and the page's labels are Russian. Screenshots are kept in
/// .build/test-artefacts/web-remote-look-*.png.
final class WebRemoteLookTests: XCTestCase {
    func testAStationWithoutCoverShowsTheBuiltInPictureTintedAndInTheBrowsersLanguage() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw NSError(
                domain: "web-remote", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "\(tool) is missing: run scripts/bootstrap (chromium, chromium-driver, python3-selenium)"])
        }
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let port = try FreePort.allocate()
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [
                   {"id": "org.oton.artwork", "path": "libOtonArtwork.so", "config": {"timeout_seconds": 2, "status_retry_seconds": []}},
                   {"id": "org.oton.web-remote", "path": "libOtonWebRemote.so", "config": {"listen": "127.0.0.1:\(port)"}}
                 ]}
                """)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        let artwork = try XCTUnwrap(events.waitForEvent("org.oton.artwork.ready", timeout: 30), "the artwork plugin chose a picture")
        XCTAssertEqual(artwork["type"], "default", "no cover and no logo: the built-in picture")
        let colour = try XCTUnwrap(artwork["color"])
        let url = try XCTUnwrap(try oton.ctl(["web-remote", "url"]).stdout.split(separator: "\n").first.map(String.init))

        let artefacts = TestPaths.root + "/.build/test-artefacts"
        let browser = try LineProcess("/usr/bin/python3", [TestPaths.root + "/Tests/Fixtures/web_remote_look.py", url, "Song One", artefacts, "ru"])
        addTeardownBlock { browser.stop() }
        for width in [1280, 390] {
            let line = try XCTUnwrap(browser.nextLine(timeout: 90), browser.diagnostics)
            let look = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
            XCTAssertEqual(look["width"] as? Int, width, line)
            let natural = look["natural"] as? [Int] ?? []
            XCTAssertTrue(natural.count == 2 && natural.allSatisfy { $0 > 0 }, "the picture is shown: \(line)")
            XCTAssertGreaterThan(look["colours"] as? Int ?? 0, 8, "a picture, not an empty flat square: \(line)")
            let shown = look["shown"] as? [Int] ?? []
            XCTAssertTrue(shown.count == 2 && shown.allSatisfy { $0 >= 200 }, "and is big enough to see: \(line)")
            XCTAssertEqual((look["accent"] as? String)?.uppercased(), colour.uppercased(), "the page is tinted with the published colour: \(line)")
            XCTAssertEqual(look["lang"] as? String, "ru", line)
            XCTAssertEqual(look["sleep_heading"] as? String, "Таймер сна", line)
            XCTAssertEqual(look["history_heading"] as? String, "Недавно звучало", line)
            XCTAssertEqual(look["playpause"] as? String, "Пауза", line)
            XCTAssertEqual(look["cover_label"] as? String, "Картинка oton: Song One", line)
            let history = look["history"] as? String ?? ""
            XCTAssertNotNil(history.firstMatch(of: #/^\d\d:\d\d /#), "a Russian clock (24 h, no AM/PM): \(history)")
            XCTAssertLessThanOrEqual(look["scroll_width"] as? Int ?? .max, width, "no sideways scrolling: \(line)")
        }
        XCTAssertEqual(browser.nextLine(timeout: 30), "done", browser.diagnostics)
    }
}
