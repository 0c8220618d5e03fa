import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window`'s favourites edited as Goodvibes edits them: add a station by name and URL, give
/// one a new URL, remove one and undo it, each through the CLI's editor and checked in plugins.json,
/// driven through AT-SPI on Xvfb as WindowTests does.
final class WindowFavouritesTests: XCTestCase {
    private var desktop: DesktopSession?

    override func tearDown() async throws {
        desktop?.stop()
        desktop = nil
    }

    /// "Add a station": a URL the CLI refuses is said in the popover and writes nothing; a good one is
    /// added to plugins.json and the list. "Set URL of NAME" changes only that station's URL. "Remove
    /// NAME", then the toast's Undo, puts it back at its place with its URL, homepage and status URL.
    func testAddByURLSetURLAndRemoveWithUndo() async throws {
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let silent = try SilentPeer()
        defer { silent.close() }
        let base = "http://127.0.0.1:\(silent.port)"
        var stations = ["Alpha", "Beta", "Gamma"].map { #"{"name": "\#($0)", "url": "\#(base)/\#($0.lowercased()).mp3"}"# }
        stations[1] = #"{"name": "Beta", "url": "\#(base)/beta.mp3", "homepage": "https://beta.example/", "status_url": "\#(base)/status-json.xsl"}"#
        let driver = try WindowDriver(
            self, desktop: desktop, plugins: #"{"default_station": "Alpha", "stations": [\#(stations.joined(separator: ", "))], "plugins": []}"#)
        try driver.open(["--instance", "edits"])
        XCTAssertTrue(driver.waitForButton("Gamma"), "\(driver.log)\n\(driver.tree())")
        let saved = { () -> [String] in
            let file = try? JSONValue.parse(Data(driver.directory.read("plugins.json").utf8))
            return (file?["stations"]?.arrayValue ?? []).map { "\($0["name"]?.stringValue ?? "?") \($0["url"]?.stringValue ?? "?")" }
        }

        // A URL the CLI refuses: its reason in the popover, plugins.json as it was.
        XCTAssertTrue(driver.press("Add a station"), driver.tree())
        XCTAssertTrue(driver.waitForButton("Add station"), "the popover opens")
        XCTAssertEqual(driver.drive(["type", "Station name", "New FM"])?["done"]?.boolValue, true, driver.tree())
        XCTAssertEqual(driver.drive(["type", "Station URL", "ftp://host/new.mp3"])?["done"]?.boolValue, true)
        XCTAssertTrue(driver.press("Add station"))
        let refused = driver.waitForText("Add station problem") { !$0.isEmpty }
        XCTAssertTrue(refused.matched, "the refusal said: \(driver.tree())")
        XCTAssertTrue(refused.last?.contains("ftp") == true, "it names what is wrong: \(refused.last ?? "")")
        XCTAssertFalse(driver.directory.read("plugins.json").contains("New FM"))

        XCTAssertEqual(driver.drive(["type", "Station URL", "\(base)/new.mp3"])?["done"]?.boolValue, true)
        XCTAssertTrue(driver.press("Add station"))
        try await pollUntilTrue(timeout: 60, "New FM added to plugins.json (\(saved()))") { saved().last == "New FM \(base)/new.mp3" }
        XCTAssertTrue(driver.waitForButton("New FM"), "the list shows it: \(driver.buttonNames())")

        // A new URL for Gamma: its name and place stay.
        XCTAssertTrue(driver.press("Edit Gamma"))
        XCTAssertTrue(driver.waitForButton("Set URL of Gamma"), "the popover opens")
        XCTAssertEqual(driver.entryText("New URL for Gamma"), "\(base)/gamma.mp3", "the entry starts with its URL")
        XCTAssertEqual(driver.drive(["type", "New URL for Gamma", "\(base)/gamma2.mp3"])?["done"]?.boolValue, true)
        XCTAssertTrue(driver.press("Set URL of Gamma"))
        try await pollUntilTrue(timeout: 60, "Gamma's new URL in plugins.json (\(saved()))") { saved()[2] == "Gamma \(base)/gamma2.mp3" }

        // Remove Beta, then Undo: back at position 2 with its URL.
        let before = saved()
        XCTAssertTrue(driver.press("Edit Beta"))
        XCTAssertTrue(driver.waitForButton("Remove Beta"), "the popover opens")
        XCTAssertTrue(driver.press("Remove Beta"))
        try await pollUntilTrue(timeout: 60, "Beta removed (\(saved()))") { !saved().contains { $0.hasPrefix("Beta ") } }
        // (libadwaita 1.2 names the toast's button "Undo Undo": its label twice.)
        var undo: String?
        try await pollUntilTrue(timeout: 8, "the toast offering Undo") {
            undo = driver.buttonNames().first { $0.hasPrefix("Undo") }
            return undo != nil
        }
        XCTAssertTrue(driver.press(undo ?? "Undo"))
        try await pollUntilTrue(timeout: 60, "Beta back at its place (\(saved()))") { saved() == before }
        let back = try XCTUnwrap(try ConfigLoader.load(file: driver.config).station(named: "Beta"))
        XCTAssertEqual(back.homepage, "https://beta.example/")
        XCTAssertEqual(back.statusURL, "\(base)/status-json.xsl", "its titles' status URL came back too")
        XCTAssertTrue(driver.waitForButton("Beta"), "the list shows it again: \(driver.buttonNames())")
    }
}
