import Foundation
import OtonTestSupport
import XCTest

@testable import OtonHost

/// The built-in default is the one source of the shipped plugins.json and of `oton config init`.
final class BuiltInConfigTests: XCTestCase {
    func testTheRepositorysPluginsJSONIsTheBuiltInDefaultByteForByte() throws {
        let shipped = try String(contentsOfFile: TestPaths.root + "/plugins.json", encoding: .utf8)
        XCTAssertEqual(shipped, BuiltInConfig.text, "edit Sources/OtonStations/Config/BuiltInConfig.swift and copy it to plugins.json")
    }

    func testTheBuiltInDefaultPlaysOtonFMWithEveryBundledPlugin() throws {
        let config = try ConfigLoader.loadBuiltIn()
        XCTAssertEqual(config.defaultStation?.name, "Oton FM")
        XCTAssertEqual(
            Set(config.plugins.map(\.id)),
            [
                "org.oton.sleep-timer", "org.oton.share", "org.oton.artwork",
                "org.oton.now-playing", "org.oton.history", "org.oton.file-sink",
                "org.oton.web-remote", "org.oton.metrics", "org.oton.snapcast",
                "org.oton.upnp", "org.oton.tray", "org.oton.recognition",
            ])
        // Song recognition listens to everything played: off unless the user turns it on (issue 52).
        XCTAssertEqual(config.plugins.first { $0.id == "org.oton.recognition" }?.enabled, false)
    }

    func testWithNoFileAnywhereTheBuiltInDefaultIsChosenAndSaysWhereItLooked() throws {
        let directory = try TemporaryDirectory(self)
        let environment = ["XDG_CONFIG_HOME": directory.file("xdg")]
        let location = try ConfigLoader.locate(explicit: nil, environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(location, .builtIn(tried: [directory.file("xdg") + "/oton/plugins.json", directory.path + "/plugins.json"]))
        XCTAssertEqual(try ConfigLoader.load(explicit: nil, environment: environment, currentDirectory: directory.path).defaultStation?.name, "Oton FM")
        // A missing file that was asked for by name is still an error, never the default.
        XCTAssertThrowsError(try ConfigLoader.locate(explicit: directory.file("missing.json"), environment: environment, currentDirectory: directory.path))
        XCTAssertThrowsError(
            try ConfigLoader.locate(
                explicit: nil, environment: ["OTON_CONFIG": directory.file("missing.json")],
                currentDirectory: directory.path))
    }
}
