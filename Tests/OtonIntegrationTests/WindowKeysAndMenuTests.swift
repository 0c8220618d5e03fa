import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window`'s favourites reordered from the keyboard (Alt+↑/↓/Home on a focused row) and by
/// "Move NAME to the top" (one `oton stations move`, however far), checked in plugins.json; the
/// primary menu's About window and the shortcuts window (Ctrl+?). Driven through AT-SPI on Xvfb as
/// WindowTests does.
final class WindowKeysAndMenuTests: XCTestCase {
    private var desktop: DesktopSession?
    /// Where the stations point: a peer that accepts and says nothing (the player connects and waits).
    private var silent: SilentPeer?

    override func tearDown() async throws {
        desktop?.stop()
        desktop = nil
        silent?.close()
        silent = nil
    }

    private func openWindow(instance: String) async throws -> WindowDriver {
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let silent = try SilentPeer()
        self.silent = silent
        let stations = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"].map {
            #"{"name": "\#($0)", "url": "http://127.0.0.1:\#(silent.port)/\#($0.lowercased()).mp3"}"#
        }
        let driver = try WindowDriver(
            self, desktop: desktop, plugins: #"{"default_station": "Alpha", "stations": [\#(stations.joined(separator: ", "))], "plugins": []}"#)
        try driver.open(["--instance", instance])
        XCTAssertTrue(driver.waitForButton("Epsilon"), "\(driver.log)\n\(driver.tree())")
        return driver
    }

    /// The station names in plugins.json, in order.
    private func saved(_ driver: WindowDriver) -> [String] {
        let file = try? JSONValue.parse(Data(driver.directory.read("plugins.json").utf8))
        return (file?["stations"]?.arrayValue ?? []).map { $0["name"]?.stringValue ?? "?" }
    }

    /// "Move Epsilon to the top" moves the last station first in one step; then, the focus having
    /// followed Epsilon to its new row, Alt+↓, Alt+↓, Alt+↑ and Alt+Home move it one place or to the top.
    func testReorderByMoveToTopAndAltArrows() async throws {
        let driver = try await openWindow(instance: "reorder")
        XCTAssertTrue(driver.press("Edit Epsilon"))
        XCTAssertTrue(driver.waitForButton("Move Epsilon to the top"), "the popover offers it: \(driver.buttonNames())")
        XCTAssertTrue(driver.press("Move Epsilon to the top"))
        try await pollUntilTrue(timeout: 60, "Epsilon first in plugins.json (\(saved(driver)))") {
            saved(driver) == ["Epsilon", "Alpha", "Beta", "Gamma", "Delta"]
        }
        let steps: [(key: String, order: [String])] = [
            ("Alt_L+Down", ["Alpha", "Epsilon", "Beta", "Gamma", "Delta"]), ("Alt_L+Down", ["Alpha", "Beta", "Epsilon", "Gamma", "Delta"]),
            ("Alt_L+Up", ["Alpha", "Epsilon", "Beta", "Gamma", "Delta"]), ("Alt_L+Home", ["Epsilon", "Alpha", "Beta", "Gamma", "Delta"]),
        ]
        for step in steps {
            // The focus is on Epsilon's row once the list shows where it went (the keys act on the focused row).
            try await pollUntilTrue(timeout: 60, "the focus on Epsilon's row (\(driver.states("Epsilon", role: "push button") ?? []))") {
                driver.states("Epsilon", role: "push button")?.contains("focused") == true
            }
            XCTAssertNotNil(driver.drive(["keys", step.key]))
            try await pollUntilTrue(timeout: 60, "\(step.key): \(step.order) in plugins.json (\(saved(driver)))") { saved(driver) == step.order }
        }
    }

    /// A favourite is one Tab stop (its station's button: neither GTK's unnamed list item nor "Edit NAME"),
    /// and the Menu key opens the focused row's popover.
    func testOneTabStopPerRowAndMenuKey() async throws {
        let driver = try await openWindow(instance: "tabs")
        // The focus on Beta's row: it follows a station moved (here to the top) from its popover.
        XCTAssertTrue(driver.press("Edit Beta"))
        XCTAssertTrue(driver.waitForButton("Move Beta to the top"), "the popover opens: \(driver.buttonNames())")
        XCTAssertTrue(driver.press("Move Beta to the top"))
        let focused = { (name: String) in driver.states(name, role: "push button")?.contains("focused") == true }
        try await pollUntilTrue(timeout: 60, "the focus on Beta, now first (\(saved(driver)))") { focused("Beta") }
        XCTAssertEqual(saved(driver), ["Beta", "Alpha", "Gamma", "Delta", "Epsilon"])
        for next in ["Alpha", "Gamma"] {
            XCTAssertNotNil(driver.drive(["keys", "Tab"]))
            try await pollUntilTrue(timeout: 60, "one Tab from the row above to \(next)") { focused(next) }
        }
        XCTAssertFalse(driver.isShowing("Move Gamma up"), "Gamma's popover is closed")
        XCTAssertNotNil(driver.drive(["keys", "Menu"]))
        try await pollUntilTrue(timeout: 60, "the Menu key opening Gamma's popover (\(driver.buttonNames()))") {
            driver.buttonNames().contains("Move Gamma up")
        }
    }

    /// Ctrl+? opens the shortcuts window, which lists the favourites' keys; the main menu's "About Oton"
    /// opens the About window with what Oton is.
    func testShortcutsWindowAndAbout() async throws {
        let driver = try await openWindow(instance: "menus")
        XCTAssertNotNil(driver.drive(["keys", "Control_L+Shift_L+slash"]))
        try await pollUntilTrue(timeout: 60, "the shortcuts window listing Alt+↑ (\(driver.labelNames()))") {
            driver.labelNames().contains("Move the focused station up")
        }
        XCTAssertTrue(driver.labelNames().contains("Play or pause"))
        XCTAssertNotNil(driver.drive(["keys", "Escape"]))
        try await pollUntilTrue(timeout: 60, "the shortcuts window closed by Escape") { !driver.labelNames().contains("Play or pause") }

        // The main menu, named for a screen reader, opens with F10 (the primary menu).
        XCTAssertTrue(driver.buttonNames().contains { $0.hasPrefix("Main menu") }, "\(driver.buttonNames())")
        XCTAssertNotNil(driver.drive(["keys", "F10"]))
        var menu: [String] = []
        try await pollUntilTrue(timeout: 60, "the main menu open (\(menu))") {
            menu = (driver.drive(["names", "menu item"])?["names"]?.arrayValue ?? []).compactMap(\.stringValue)
            return menu.contains("About Oton")
        }
        XCTAssertTrue(menu.contains("Keyboard Shortcuts") && menu.contains("Preferences") && menu.contains("Quit"), "\(menu)")
        XCTAssertTrue(driver.press("About Oton"))
        try await pollUntilTrue(timeout: 60, "the About window (\(driver.labelNames()))") {
            driver.labelNames().contains("An internet radio player and recorder")
        }
        XCTAssertTrue(driver.labelNames().contains("Oton"), "it names the application: \(driver.labelNames())")
    }
}
