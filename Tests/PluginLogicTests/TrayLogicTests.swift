import OtonJSON
import TrayLogic
import XCTest

/// The tray plugin's pure parts: its config, the `background` command's words and replies, and the menu.
final class TrayLogicTests: XCTestCase {
    func testConfigDefaultsAndRefusals() throws {
        XCTAssertEqual(try TrayConfig.parse("{}"), TrayConfig())
        XCTAssertFalse(try TrayConfig.parse("{}").keepPlaying, "a closing window stops the player unless asked")
        let config = try TrayConfig.parse(#"{"keep_playing": true, "tray": false, "notification_timeout_ms": 0}"#)
        XCTAssertTrue(config.keepPlaying)
        XCTAssertFalse(config.tray)
        XCTAssertEqual(config.notificationTimeoutMilliseconds, 0)
        XCTAssertThrowsError(try TrayConfig.parse(#"{"keep_playing": "yes"}"#))
        XCTAssertThrowsError(try TrayConfig.parse(#"{"keep_plying": true}"#)) { error in
            XCTAssertTrue("\(error)".contains("keep_plying"), "\(error)")
        }
    }

    func testBackgroundCommandWords() {
        XCTAssertEqual(try BackgroundCommand.parse([]).get(), BackgroundCommand(verb: .status))
        XCTAssertEqual(try BackgroundCommand.parse(["on"]).get().verb, .set(true))
        XCTAssertEqual(try BackgroundCommand.parse(["off", "--format", "json"]).get(), BackgroundCommand(verb: .set(false), json: true))
        let closed = try? BackgroundCommand.parse(["window-closed", "--instance", "win-1", "--config", "/home/a/p.json", "--format", "json"]).get()
        XCTAssertEqual(closed, BackgroundCommand(verb: .windowClosed, json: true, instance: "win-1", config: "/home/a/p.json"))
        XCTAssertEqual(windowArguments(instance: "win-1", config: "/home/a/p.json"), ["window", "--instance", "win-1", "--config", "/home/a/p.json"])
        XCTAssertEqual(windowArguments(instance: nil, config: nil), ["window"])
        for bad in [["sideways"], ["on", "off"], ["--format", "yaml"], ["--instance"], ["window-closed", "--instance", "../x"]] {
            guard case .failure = BackgroundCommand.parse(bad) else { return XCTFail("\(bad) is refused") }
        }
        XCTAssertEqual(BackgroundCommand.reply(keepPlaying: true, json: true, on: "on", off: "off"), #"{"keep_playing":true}"#)
        XCTAssertEqual(BackgroundCommand.reply(keepPlaying: false, json: false, on: "on", off: "off"), "off")
    }

    func testStationsFromTheStationsReply() {
        let reply = #"{"id":null,"ok":true,"data":{"stations":[{"number":1,"name":"One","current":true},{"number":2,"name":"Two_FM"},{"name":"no number"}]}}"#
        XCTAssertEqual(
            TrayStation.list(fromReply: reply),
            [TrayStation(number: 1, name: "One", isCurrent: true), TrayStation(number: 2, name: "Two_FM", isCurrent: false)])
        XCTAssertNil(TrayStation.list(fromReply: #"{"ok":false,"error":"no"}"#))
        XCTAssertNil(TrayStation.list(fromReply: "not json"))
        let many = (1...500).map { #"{"number":\#($0),"name":"S\#($0)"}"# }.joined(separator: ",")
        XCTAssertEqual(TrayStation.list(fromReply: #"{"ok":true,"data":{"stations":[\#(many)]}}"#)?.count, 50, "a menu is bounded")
    }

    func testTheMenuItsIdsAndActions() {
        var menu = TrayMenu()
        let start = menu.revision
        XCTAssertTrue(menu.setStations([TrayStation(number: 1, name: "One", isCurrent: false), TrayStation(number: 2, name: "Two_FM", isCurrent: true)]))
        XCTAssertFalse(menu.setStations(menu.stations), "the same list is no change")
        XCTAssertTrue(menu.setPlaying(true))
        XCTAssertFalse(menu.setPlaying(true))
        XCTAssertEqual(menu.revision, start + 2, "each change is a new revision (LayoutUpdated)")
        let items = menu.items(TrayMenu.Labels(play: "«Play»", pause: "«Pause»", open: "«Open Oton»", quit: "«Quit»"))
        XCTAssertEqual(items.map(\.label), ["«Pause»", "", "One", "Two__FM", "", "«Open Oton»", "«Quit»"], "a name's _ is doubled: dbusmenu's access key mark")
        XCTAssertEqual(items[3].kind, .radio(on: true))
        XCTAssertEqual(items[2].kind, .radio(on: false))
        XCTAssertEqual(items[1].kind, .separator)
        XCTAssertEqual(items.map(\.id), [1, 10, 1001, 1002, 11, 2, 3])
        XCTAssertEqual(menu.action(for: 1), .playPause)
        XCTAssertEqual(menu.action(for: 1002), .station(2))
        XCTAssertEqual(menu.action(for: 2), .open)
        XCTAssertEqual(menu.action(for: 3), .quit)
        XCTAssertNil(menu.action(for: 1003), "no third favourite")
        XCTAssertNil(menu.action(for: 10), "a separator does nothing")
        _ = menu.setPlaying(false)
        XCTAssertEqual(menu.items(TrayMenu.Labels()).first?.label, "Play")
        XCTAssertEqual(TrayMenu().items(TrayMenu.Labels()).map(\.label), ["Play", "", "Open Oton", "Quit"], "no favourites: no empty section")
    }
}
