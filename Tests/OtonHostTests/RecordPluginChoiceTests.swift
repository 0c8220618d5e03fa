import Foundation
import OtonHost
import XCTest

/// `oton record` loads only what recording needs, and more only with --with-plugin.
final class RecordPluginChoiceTests: XCTestCase {
    private let sink = "org.oton.file-sink"
    private let configured = [
        PluginEntry(id: "org.oton.sleep-timer", path: "a.so"),
        PluginEntry(id: "org.oton.artwork", path: "b.so"),
        PluginEntry(id: "org.oton.now-playing", path: "c.so"),
        PluginEntry(id: "org.oton.history", path: "d.so"),
        PluginEntry(id: "org.example.off", path: "e.so", enabled: false),
        PluginEntry(id: "org.oton.file-sink", path: "f.so", enabled: false),
    ]

    func testByDefaultOnlyArtworkRunsBesideTheFileSink() throws {
        let chosen = try RecordArguments.plugins(configured, withPlugins: [], fileSinkID: sink)
        XCTAssertEqual(chosen.map(\.id), ["org.oton.artwork"])
    }

    func testArtworkDisabledInPluginsJsonStaysOff() throws {
        var entries = configured
        entries[1].enabled = false
        XCTAssertEqual(try RecordArguments.plugins(entries, withPlugins: [], fileSinkID: sink).map(\.id), [])
    }

    func testWithPluginAddsEachNamedOneEvenWhenDisabled() throws {
        let chosen = try RecordArguments.plugins(configured, withPlugins: ["org.oton.history", "org.example.off", "org.oton.history"],
                                                 fileSinkID: sink)
        XCTAssertEqual(chosen.map(\.id), ["org.oton.artwork", "org.oton.history", "org.example.off"])
        XCTAssertTrue(chosen.allSatisfy(\.enabled))
        XCTAssertEqual(try RecordArguments.plugins(configured, withPlugins: [sink], fileSinkID: sink).map(\.id), ["org.oton.artwork"],
                       "the file sink is the caller's to add")
    }

    func testAnUnknownIdIsRefusedListingTheKnownOnes() {
        XCTAssertThrowsError(try RecordArguments.plugins(configured, withPlugins: ["org.oton.histroy"], fileSinkID: sink)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("--with-plugin org.oton.histroy: plugins.json has no plugin with this id; known: "), text)
            XCTAssertTrue(text.contains("org.oton.history") && text.contains("org.oton.artwork") && text.contains(sink), text)
        }
    }
}
