import Foundation
import IcecastFixture
import OtonJSON
import OtonTestSupport
import XCTest

/// The tray plugin in a real `oton play` on a private session bus: a StatusNotifierWatcher written
/// for the test (Tests/Fixtures/tray/status_notifier_watcher.py, the protocol's peer) records the
/// item's registration; the item's dbusmenu is read and clicked as a panel would (gdbus), and the
/// player follows. The "keeps playing" notification's actions drive it too.
final class TrayPluginTests: XCTestCase {
    private static let watcher = TestPaths.root + "/Tests/Fixtures/tray/status_notifier_watcher.py"
    private static let portal = TestPaths.root + "/Tests/Fixtures/tray/background_portal.py"

    private func config(_ directory: TemporaryDirectory, _ icecast: IcecastServer, keepPlaying: Bool) throws -> String {
        try directory.write(
            "plugins.json",
            """
            {"default_station": "One FM",
             "stations": [{"name": "One FM", "url": "\(icecast.url(mount: "/one.mp3").absoluteString)"},
                          {"name": "Two_FM", "url": "\(icecast.url(mount: "/two.mp3").absoluteString)"}],
             "plugins": [{"id": "org.oton.tray", "path": "\(TestPaths.pluginLibrary("OtonTray"))", "enabled": true,
                          "config": {"keep_playing": \(keepPlaying)}}]}
            """)
    }

    private func status(_ bus: PrivateSessionBus, _ instance: String) -> [String: JSONValue]? {
        guard let result = try? bus.run(TestPaths.oton, ["ctl", "--instance", instance, "--json", "status"]), result.status == 0 else { return nil }
        return (try? JSONValue.parse(Data(result.stdout.utf8)))?["data"]?.objectValue
    }

    private func menu(_ bus: PrivateSessionBus, _ item: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try bus.run("/usr/bin/gdbus", ["call", "--session", "--dest", item, "--object-path", "/MenuBar", "--method"] + arguments)
    }

    func testTheTrayRegistersWithTheWatcherAndItsMenuDrivesThePlayer() async throws {
        let directory = try TemporaryDirectory(self)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let record = directory.file("registered.txt")
        FileManager.default.createFile(atPath: record, contents: nil)
        let watcher = ManagedProcess(
            name: "status_notifier_watcher", executable: "/usr/bin/python3", arguments: [Self.watcher, record], environment: bus.environment,
            stderr: FileHandle(forWritingAtPath: directory.file("watcher.log")) ?? .standardError)
        try watcher.start()
        defer { watcher.stop() }
        try await pollUntilTrue(timeout: 30, "the watcher on the bus") { try bus.hasOwner("org.kde.StatusNotifierWatcher") }
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/one.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        _ = try await icecast.startSource(mount: "/two.mp3", format: .mp3, initialTitle: "Artist B - Song Two")
        let instance = "tray-\(getpid())"
        let (oton, _) = try bus.startOton(
            ["play", "--headless", "--no-tui", "--instance", instance, "--config", try config(directory, icecast, keepPlaying: false)], in: directory)
        defer { oton.stop() }
        func failure() -> String { "oton's log:\n\(directory.read("oton.log"))\nwatcher:\n\(directory.read("watcher.log"))" }

        // The item registers by its bus name, org.kde.StatusNotifierItem-PID-1, as the spec names it.
        let line = try await pollUntil(timeout: 60, "the item's registration; \(failure())") {
            directory.read("registered.txt").split(separator: "\n").first.map(String.init)
        }
        let item = try XCTUnwrap(line.split(separator: " ").last.map(String.init))
        XCTAssertEqual(item, "org.kde.StatusNotifierItem-\(oton.pid)-1", line)
        let menuPath = try bus.run(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--dest", item, "--object-path", "/StatusNotifierItem", "--method", "org.freedesktop.DBus.Properties.Get",
                "org.kde.StatusNotifierItem", "Menu",
            ])
        XCTAssertTrue(menuPath.stdout.contains("'/MenuBar'"), menuPath.stdout + menuPath.stderr)

        try await pollUntilTrue(timeout: 60, "One FM playing; \(failure())") { self.status(bus, instance)?["state"]?.stringValue == "playing" }
        // The menu: Pause (it plays), the favourites as radio items (the one playing marked; a name's "_" doubled,
        // since dbusmenu reads one as the access key), Open Oton, Quit.
        let layout = try await pollUntil(timeout: 30, "the menu with its favourites and Pause") {
            let result = try self.menu(bus, item, ["com.canonical.dbusmenu.GetLayout", "0", "10", "@as []"])
            return result.stdout.contains("'Two__FM'") && result.stdout.contains("'Pause'") ? result.stdout : nil
        }
        for label in ["'One FM'", "'Open Oton'", "'Quit'", "'toggle-type': <'radio'>"] { XCTAssertTrue(layout.contains(label), layout) }
        XCTAssertTrue(
            layout.contains("(1001, {'enabled': <true>, 'visible': <true>, 'label': <'One FM'>, 'toggle-type': <'radio'>, 'toggle-state': <1>}"), layout)

        // Click the second favourite: the player switches there.
        let click = try menu(bus, item, ["com.canonical.dbusmenu.Event", "1002", "clicked", "<0>", "0"])
        XCTAssertEqual(click.status, 0, click.stderr)
        try await pollUntilTrue(timeout: 60, "Two_FM playing; \(failure())") {
            let now = self.status(bus, instance)
            return now?["station"]?.stringValue == "Two_FM" && now?["state"]?.stringValue == "playing"
        }
        // Play/pause: it pauses, and the menu then offers Play.
        XCTAssertEqual(try menu(bus, item, ["com.canonical.dbusmenu.Event", "1", "clicked", "<0>", "0"]).status, 0)
        try await pollUntilTrue(timeout: 60, "paused; \(failure())") { self.status(bus, instance)?["state"]?.stringValue == "paused" }
        _ = try await pollUntil(timeout: 30, "the menu offering Play") {
            try self.menu(bus, item, ["com.canonical.dbusmenu.GetLayout", "0", "10", "@as []"]).stdout.contains("'Play'") ? true : nil
        }
        // An item the menu does not have is refused, not guessed at.
        let unknown = try menu(bus, item, ["com.canonical.dbusmenu.Event", "4242", "clicked", "<0>", "0"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("InvalidArgs"), unknown.stderr)
        // Quit ends the player.
        XCTAssertEqual(try menu(bus, item, ["com.canonical.dbusmenu.Event", "3", "clicked", "<0>", "0"]).status, 0)
        try await pollUntilTrue(timeout: 60, "oton quit from the tray's menu; \(failure())") { !oton.isRunning }
    }

    /// `background window-closed` (what the closing window sends) with keep_playing on: the notification
    /// says so, with Open, Pause and Quit; Pause pauses the player; the background portal (a peer written
    /// for the test, Tests/Fixtures/tray/background_portal.py) is asked. With it off: no notification, and
    /// the reply says the player stops.
    func testTheKeepsPlayingNotificationAndItsActions() async throws {
        let directory = try TemporaryDirectory(self)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try await NotificationServer.start(on: bus)
        defer { notifications.stop() }
        let asked = directory.file("portal.jsonl")
        FileManager.default.createFile(atPath: asked, contents: nil)
        let portal = ManagedProcess(
            name: "background_portal", executable: "/usr/bin/python3", arguments: [Self.portal, asked], environment: bus.environment,
            stderr: FileHandle(forWritingAtPath: directory.file("portal.log")) ?? .standardError)
        try portal.start()
        defer { portal.stop() }
        try await pollUntilTrue(timeout: 30, "the portal on the bus") { try bus.hasOwner("org.freedesktop.portal.Desktop") }
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/one.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        _ = try await icecast.startSource(mount: "/two.mp3", format: .mp3, initialTitle: "Artist B - Song Two")
        let instance = "keep-\(getpid())"
        let (oton, _) = try bus.startOton(
            ["play", "--headless", "--no-tui", "--instance", instance, "--config", try config(directory, icecast, keepPlaying: true)], in: directory)
        defer { oton.stop() }
        try await pollUntilTrue(timeout: 60, "playing; \(directory.read("oton.log"))") { self.status(bus, instance)?["state"]?.stringValue == "playing" }

        func background(_ words: [String]) throws -> String {
            let result = try bus.run(TestPaths.oton, ["ctl", "--instance", instance, "background"] + words)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try background(["--format", "json"]), #"{"keep_playing":true}"#)
        XCTAssertEqual(try background(["window-closed", "--instance", instance, "--format", "json"]), #"{"keep_playing":true}"#)
        let call = try await notifications.waitForCall(timeout: 30) { $0.summary == "Oton keeps playing" }
        XCTAssertEqual(call.body, "One FM plays on; the window is closed.")
        XCTAssertEqual(call.actions, ["default", "Open", "open", "Open", "pause", "Pause", "quit", "Quit"])
        XCTAssertEqual(call.hints["desktop-entry"], "org.oton.Oton")
        // The background portal was asked, with a reason and no autostart.
        let request = try await pollUntil(timeout: 30, "RequestBackground at the portal; \(directory.read("portal.log"))") {
            directory.read("portal.jsonl").split(separator: "\n").first.flatMap { try? JSONValue.parse(Data($0.utf8)) }
        }
        XCTAssertEqual(request["options"]?["reason"]?.stringValue, "Oton plays the radio with its window closed")
        XCTAssertEqual(request["options"]?["autostart"]?.boolValue, false)

        // The server says Pause was clicked on it (ActionInvoked with its id): the player pauses.
        let id = try XCTUnwrap(notifications.lastID, "the server's id for the notification")
        func click(_ action: String) throws {
            let emitted = try bus.run(
                "/usr/bin/gdbus",
                [
                    "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications", "--method",
                    "org.freedesktop.DBus.Mock.EmitSignal", "org.freedesktop.Notifications", "ActionInvoked", "us", "[<uint32 \(id)>, <'\(action)'>]",
                ])
            XCTAssertEqual(emitted.status, 0, emitted.stderr)
        }
        try click("pause")
        try await pollUntilTrue(timeout: 60, "paused by the notification's action") { self.status(bus, instance)?["state"]?.stringValue == "paused" }
        // Open starts `oton window` (the oton that plays, with the closing window's --instance): with no display
        // here, the window says so in its one line, which lands in the player's log.
        let environment = ProcessInfo.processInfo.environment
        if environment["DISPLAY"] == nil, environment["WAYLAND_DISPLAY"] == nil {
            try click("open")
            try await pollUntilTrue(timeout: 60, "oton window started by Open") {
                directory.read("oton.log").contains("run `oton window` in a desktop session")
            }
        }

        // Off (for this run): the closing window hears that the player stops, and nothing is notified.
        XCTAssertEqual(try background(["off"]), "a closing window stops the player it started")
        let before = notifications.calls.count
        XCTAssertEqual(try background(["window-closed", "--format", "json"]), #"{"keep_playing":false}"#)
        XCTAssertEqual(notifications.calls.count, before)
        let refused = try bus.run(TestPaths.oton, ["ctl", "--instance", instance, "background", "sideways"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("background does not take \"sideways\""), refused.stderr)
        // Quit, from the notification, ends the player.
        XCTAssertTrue(oton.isRunning)
        try click("quit")
        try await pollUntilTrue(timeout: 60, "oton quit from the notification") { !oton.isRunning }
    }
}
