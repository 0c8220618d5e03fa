import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window`'s directory search as a person types into it, against a local Radio Browser
/// directory that takes seconds to answer, driven through AT-SPI on Xvfb as WindowTests does.
final class WindowSearchTests: XCTestCase {
    private var desktop: DesktopSession?

    override func tearDown() async throws {
        desktop?.stop()
        desktop = nil
    }

    /// Typed key by key at a person's pace: a pause searches once; the next keys end that search (its
    /// `oton stations search` is gone at once) and the final query is asked of the directory once, its
    /// answer shown within seconds of the directory's; "Add NAME to favourites" on a result never
    /// played writes it to plugins.json.
    func testTypingSearchesOncePerPauseEndsTheOlderSearchAndAddsAResultNotPlayed() async throws {
        let found = "http://127.0.0.1:9/found.mp3"
        let directory = try FakeStationDirectory(
            stations: [
                #"{"stationuuid": "11111111-2222-3333-4444-555555555555", "name": "Found FM", "url": "\#(found)", "codec": "MP3", "bitrate": 128, "#
                    + #""countrycode": "DE", "tags": "jazz,swing", "homepage": "https://found.example/", "lastcheckok": 1}"#
            ], delay: 8)
        defer { directory.stop() }
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let plugins =
            #"{"directory_server": "\#(directory.url)", "#
            + #""stations": [{"name": "Home FM", "url": "http://127.0.0.1:9/home.mp3"}], "plugins": []}"#
        let driver = try WindowDriver(self, desktop: desktop, plugins: plugins)
        let window = try driver.open(["--instance", "typing"])
        XCTAssertTrue(driver.waitForButton("Home FM"), "\(driver.log)\n\(driver.tree())")
        XCTAssertTrue(driver.press("Search"), driver.tree())
        try await pollUntilTrue(timeout: 60, "the search page built") { driver.isShowing("Search stations") }

        // "jazz", then a pause: one search, which the directory holds for 8 s. Keys 0.2 s apart: longer
        // than GTK's own 150 ms delay, shorter than the window's 300 ms.
        let first = driver.drive(["type-keys", "Search stations", "jazz", "0.2"])
        XCTAssertNotNil(first, driver.tree())
        try await pollUntilTrue(timeout: 60, "the search for jazz at the directory (saw \(directory.searched))") {
            directory.searched.contains("jazz")
        }
        // " lab" at a person's pace: the search for "jazz" ends, one for "jazz lab" starts.
        let second = driver.drive(["type-keys", "Search stations", "jazz lab", "0.2", "4"])
        XCTAssertNotNil(second)
        try await pollUntilTrue(timeout: 60, "the search for jazz lab at the directory (saw \(directory.searched))") {
            directory.searched.contains("jazz lab")
        }
        do {
            try await pollUntilTrue(timeout: 3, "the search for jazz ended") { !Self.searches(below: window.pid).contains("jazz") }
        } catch {
            XCTFail("still running: \(Self.searches(below: window.pid))")
        }

        let shown = driver.drive(["wait-text", "Search status", "1 station found", "60"], seconds: 90)
        let shownAt = shown?["at"]?.numberValue
        XCTAssertNotNil(shownAt, "the result shown; status: \(driver.text("Search status") ?? "-"); searched: \(directory.searched)")
        let answer = directory.answers.first { $0.name == "jazz lab" }
        XCTAssertNotNil(answer, "the directory answered jazz lab: \(directory.answers)")
        if let shownAt, let answer, let lastKey = second?["at"]?.numberValue {
            let late = shownAt - answer.at.timeIntervalSince1970
            print("the answer to jazz lab shown \(late) s after the directory's, \(shownAt - lastKey) s after the last key; searched: \(directory.searched)")
            XCTAssertLessThan(late, 3, "shown within seconds of the directory's answer; searched: \(directory.searched)")
            // The directory's 8 s, the 300 ms pause, and a busy machine's seconds: not a queue of older searches first.
            XCTAssertLessThan(shownAt - lastKey, 14, "shown soon after the last key; searched: \(directory.searched)")
        }
        XCTAssertEqual(directory.searched.filter { $0 == "jazz lab" }.count, 1, "one request for the final query: \(directory.searched)")
        // One request per pause; unless the machine held a key back for a pause of its own.
        let gaps = [first, second].compactMap { $0?["longest_gap"]?.numberValue }
        if gaps.count == 2, gaps.allSatisfy({ $0 < 0.27 }) {
            XCTAssertEqual(directory.searched, ["jazz", "jazz lab"], "one request per pause in typing")
        } else {
            print("keys held back (longest gaps \(gaps) s): the requests per pause are not checked")
        }
        XCTAssertTrue(driver.buttonNames().contains("Found FM · DE · MP3 128 kbps · jazz, swing"), driver.buttonNames().joined(separator: "\n"))
        try await pollUntilTrue(timeout: 30, "no search left running") { Self.searches(below: window.pid).isEmpty }

        // Added without being played: the CLI's editor writes it; the player never switched to it.
        XCTAssertTrue(driver.press("Add Found FM to favourites"), driver.buttonNames().joined(separator: "\n"))
        try await pollUntilTrue(timeout: 60, "Found FM in plugins.json") { driver.directory.read("plugins.json").contains(#""Found FM""#) }
        let added = try XCTUnwrap(try ConfigLoader.load(file: driver.config).station(named: "Found FM"))
        XCTAssertEqual(added, Station(name: "Found FM", url: found, homepage: "https://found.example/"), "as `add --from-search` keeps it")
        XCTAssertNotEqual(driver.status(instance: "typing")?["url"]?.stringValue, found)
    }

    /// The queries of the `oton stations search` processes below `pid` (a zombie has no command line).
    private static func searches(below pid: Int32) -> [String] {
        DesktopSession.descendants(of: pid).compactMap { child in
            guard let data = FileManager.default.contents(atPath: "/proc/\(child)/cmdline") else { return nil }
            let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard words.count > 3, words[1] == "stations", words[2] == "search" else { return nil }
            return words[3]
        }
    }
}
