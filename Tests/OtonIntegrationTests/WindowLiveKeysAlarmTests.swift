import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window`'s timeshift ("behind live", Go live) and loudness levelling toggle, its keys (Space,
/// Ctrl+F) and the alarm days, driven through AT-SPI on Xvfb as WindowTests does, each checked where
/// it acts: the player (`oton ctl status`), the alarm's systemd units, the labels.
final class WindowLiveKeysAlarmTests: XCTestCase {
    private var server: IcecastServer?
    private var desktop: DesktopSession?

    override func tearDown() async throws {
        server?.stop()
        server = nil
        desktop?.stop()
        desktop = nil
    }

    /// A lab station with the player's `extra` plugins.json keys; the window opened on it (with `environment`), its title shown.
    private func openOnLabStation(instance: String, extra: String = "", environment: [String: String] = [:]) async throws -> WindowDriver {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Lab FM")
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let lab = server.url(mount: "/lab.mp3").absoluteString
        // A directory that refuses at once: a search typed in the test fails fast, offline.
        let directory = "http://127.0.0.1:\(try FreePort.allocate())"
        let driver = try WindowDriver(
            self, desktop: desktop,
            plugins: #"{\#(extra)"directory_server": "\#(directory)", "default_station": "Lab FM", "#
                + #""stations": [{"name": "Lab FM", "url": "\#(lab)"}], "plugins": []}"#, extra: environment)
        try driver.open(["--instance", instance, "--size", "1280x800"])
        let first = driver.waitForText("Title") { $0 == "Song One" }
        XCTAssertTrue(first.matched, "saw \(first.last ?? "nothing"); log: \(driver.log)\n\(driver.tree())")
        return driver
    }

    /// Polls as `pollUntilTrue` does; on a timeout the failure shows the window's tree and the player's status.
    private func waitShowing(_ driver: WindowDriver, _ instance: String, _ what: String, _ condition: @escaping () -> Bool) async throws {
        do {
            try await pollUntilTrue(timeout: 60, what, condition)
        } catch {
            XCTFail(
                "\(what): status \(driver.status(instance: instance) ?? [:]); levelling toggle: \(driver.states("Loudness levelling") ?? [])\n\(driver.tree())")
            throw error
        }
    }

    private func state(_ driver: WindowDriver, _ instance: String) -> String? {
        driver.status(instance: instance)?["state"]?.stringValue
    }

    /// Timeshift (`"timeshift": "30m"`, as by default): paused, the window counts how far behind live it falls;
    /// played, it stays behind and offers "Go live", which brings the player to live (`live`). The
    /// "Loudness levelling" toggle turns the player's levelling off and on (`level off|on`).
    func testBehindLiveGoLiveAndLoudnessToggle() async throws {
        let driver = try await openOnLabStation(instance: "live", extra: #""timeshift": "30m", "#)

        // Levelling: on (the player's default), shown as a pressed toggle; pressed, it turns the player's off, then on.
        try await waitShowing(driver, "live", "the levelling toggle shown, pressed") {
            let states = driver.states("Loudness levelling") ?? []
            return states.contains("checked") || states.contains("pressed")
        }
        XCTAssertEqual(driver.status(instance: "live")?["level"]?["enabled"]?.boolValue, true)
        XCTAssertTrue(driver.press("Loudness levelling"))
        try await pollUntilTrue(timeout: 60, "the player's levelling off") { driver.status(instance: "live")?["level"]?["enabled"]?.boolValue == false }
        try await pollUntilTrue(timeout: 60, "the toggle released") {
            let states = driver.states("Loudness levelling") ?? ["?"]
            return !states.contains("checked") && !states.contains("pressed")
        }
        XCTAssertTrue(driver.press("Loudness levelling"))
        try await pollUntilTrue(timeout: 60, "the player's levelling on again") { driver.status(instance: "live")?["level"]?["enabled"]?.boolValue == true }

        // At live: "live", and no Go live.
        let atLive = driver.waitForText("Behind live") { $0 == "live" }
        XCTAssertTrue(atLive.matched, "saw \(atLive.last ?? "nothing"); status: \(driver.status(instance: "live") ?? [:])\n\(driver.tree())")
        XCTAssertFalse(driver.isShowing("Go live"), "no Go live at live")

        // Paused: the window counts the time behind live up (the player keeps receiving).
        XCTAssertTrue(driver.waitForButton("Pause"), driver.buttonNames().joined(separator: ", "))
        XCTAssertTrue(driver.press("Pause"))
        try await pollUntilTrue(timeout: 60, "the player paused") { state(driver, "live") == "paused" }
        let grown = driver.waitForText("Behind live") { text in
            guard text.hasPrefix("−0:"), text.hasSuffix(" behind live"), let seconds = Int(text.dropFirst(3).prefix(2)) else { return false }
            return seconds >= 3
        }
        XCTAssertTrue(grown.matched, "the window counts up while paused; saw \(grown.last ?? "nothing")")

        // Played again: still behind live (timeshift resumes where it paused), and Go live is offered.
        XCTAssertTrue(driver.waitForButton("Play"))
        XCTAssertTrue(driver.press("Play"))
        try await pollUntilTrue(timeout: 60, "the player playing behind live") {
            guard let status = driver.status(instance: "live"), status["state"]?.stringValue == "playing" else { return false }
            return (status["behind_live_ms"]?.numberValue ?? 0) >= 2000
        }
        let behind = driver.waitForText("Behind live") { $0.hasPrefix("−") && $0.hasSuffix(" behind live") }
        XCTAssertTrue(behind.matched, "saw \(behind.last ?? "nothing")")
        try await pollUntilTrue(timeout: 60, "Go live shown") { driver.isShowing("Go live") }

        // Go live: the player is at live again, the window says so and hides the button.
        XCTAssertTrue(driver.press("Go live"))
        try await pollUntilTrue(timeout: 60, "the player back at live") {
            (driver.status(instance: "live")?["behind_live_ms"]?.numberValue).map { $0 < 1000 } == true
        }
        let live = driver.waitForText("Behind live") { $0 == "live" }
        XCTAssertTrue(live.matched, "saw \(live.last ?? "nothing")")
        try await pollUntilTrue(timeout: 60, "Go live hidden") { !driver.isShowing("Go live") }
    }

    /// Without timeshift (`"timeshift": 0`) the player has no ring: no "behind live" and no Go live (the row is the levelling toggle's alone).
    func testNoTimeshiftShowsNoBehindLive() async throws {
        let driver = try await openOnLabStation(instance: "nolive", extra: #""timeshift": 0, "#)
        try await waitShowing(driver, "nolive", "the levelling toggle shown") { driver.isShowing("Loudness levelling") }
        XCTAssertNil(driver.status(instance: "nolive")?["behind_live_ms"], "the player keeps no ring")
        XCTAssertEqual(driver.text("Behind live") ?? "", "", "no behind-live text without timeshift")
        XCTAssertFalse(driver.isShowing("Go live"))
    }

    /// Space pauses and plays (wherever the focus is but in text); Ctrl+F opens the search with its
    /// entry focused, where a typed space is the entry's, not play/pause.
    func testSpacePlaysAndPausesAndCtrlFOpensTheSearch() async throws {
        let driver = try await openOnLabStation(instance: "keys")
        try await pollUntilTrue(timeout: 60, "the player playing") { state(driver, "keys") == "playing" }

        XCTAssertNotNil(driver.drive(["keys", "space"]))
        try await pollUntilTrue(timeout: 60, "Space pausing the player") { state(driver, "keys") == "paused" }
        XCTAssertTrue(driver.waitForButton("Play"), "the window offers Play: \(driver.buttonNames())")
        XCTAssertNotNil(driver.drive(["keys", "space"]))
        try await pollUntilTrue(timeout: 60, "Space playing again") { state(driver, "keys") == "playing" }

        // Ctrl+F: the search page, its entry focused: typed keys go into it, a space too.
        XCTAssertFalse(driver.isShowing("Search stations"), "the search page is not shown before Ctrl+F")
        XCTAssertNotNil(driver.drive(["keys", "Control_L+f"]))
        try await waitShowing(driver, "keys", "the search entry shown") { driver.isShowing("Search stations") }
        // Focused: keys typed now go into it.
        XCTAssertNotNil(driver.drive(["keys", "a", "space", "b"]))
        try await pollUntilTrue(timeout: 60, "the keys typed into the search entry") { driver.entryText("Search stations") == "a b" }
        XCTAssertEqual(state(driver, "keys"), "playing", "a space typed in the entry is text, not pause")
        let searched = driver.waitForText("Search status") { $0 == "The station directory could not be reached" }
        XCTAssertTrue(searched.matched, "the search ran (and the offline directory said so): \(searched.last ?? "nothing")")
        try await pollUntilTrue(timeout: 30, "the status page's advice") { driver.labelNames().contains("Check the internet connection, then try again.") }
    }

    /// A fresh window's focus is on play/pause (GTK's own first choice was "Record this station", the
    /// first control in the header bar): Enter pauses the player and starts no recording.
    func testAFreshWindowFocusesPlayPauseSoEnterStartsNoRecording() async throws {
        let folder = try TemporaryDirectory(self)
        let driver = try await openOnLabStation(instance: "focus", environment: ["XDG_MUSIC_DIR": folder.path])
        try await pollUntilTrue(timeout: 60, "the player playing") { state(driver, "focus") == "playing" }
        XCTAssertTrue(driver.waitForButton("Pause"), driver.buttonNames().joined(separator: ", "))
        // Each wait fails without ending the test, so that a failure shows what Enter did instead.
        let focused =
            (try? await pollUntilTrue(timeout: 60, "play/pause focused") { driver.states("Pause", role: "push button")?.contains("focused") == true }) != nil
        XCTAssertTrue(focused, "play/pause has the focus: \(driver.tree())")
        XCTAssertFalse(driver.states("Record this station", role: "push button")?.contains("focused") ?? false)

        XCTAssertNotNil(driver.drive(["keys", "Return"]))
        let paused = (try? await pollUntilTrue(timeout: 60, "Enter pausing the player") { self.state(driver, "focus") == "paused" }) != nil
        XCTAssertTrue(paused, "Enter pauses: the player is \(state(driver, "focus") ?? "gone")")
        XCTAssertTrue(driver.waitForButton(paused ? "Play" : "Pause"), driver.buttonNames().joined(separator: ", "))
        XCTAssertFalse(driver.buttonNames().contains("Stop recording this station"), "Enter started a recording")
        let recorder = "window-record-\(driver.window?.pid ?? 0)"
        XCTAssertNil(driver.status(instance: recorder), "no recorder runs")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing recorded into the music folder")
    }

    /// The alarm's days in Preferences → Alarms: Monday and Wednesday toggled on make `oton alarm add
    /// --days mon,wed` (its units say so); none toggled is every day.
    func testAlarmDaysInPreferences() async throws {
        let driver = try await openOnLabStation(instance: "days")
        let units = driver.directory.file("config") + "/systemd/user"
        XCTAssertNotNil(driver.drive(["keys", "Control_L+comma"]))
        try await pollUntilTrue(timeout: 60, "the preferences open") { driver.press("Alarms") }
        XCTAssertEqual(driver.drive(["type", "Alarm time", "06:45"])?["done"]?.boolValue, true, driver.tree())
        XCTAssertEqual(driver.drive(["type", "Alarm station", "Lab FM"])?["done"]?.boolValue, true)
        for day in ["Monday", "Wednesday"] { XCTAssertTrue(driver.press(day), driver.tree()) }
        XCTAssertTrue(driver.press("Add alarm"))
        let timer = units + "/oton-alarm-1.timer"
        try await pollUntilTrue(timeout: 60, "the alarm's timer written") { FileManager.default.fileExists(atPath: timer) }
        let text = (try? String(contentsOfFile: timer, encoding: .utf8)) ?? ""
        XCTAssertTrue(text.contains("X-OtonDays=mon,wed"), text)
        XCTAssertTrue(text.contains("OnCalendar=Mon,Wed *-*-* 06:45:00"), text)
        XCTAssertTrue(driver.waitForButton("Remove alarm 1"), "the list shows it: \(driver.buttonNames())")

        // Toggled off again: the next alarm rings every day.
        for day in ["Monday", "Wednesday"] { XCTAssertTrue(driver.press(day)) }
        XCTAssertEqual(driver.drive(["type", "Alarm time", "07:30"])?["done"]?.boolValue, true)
        XCTAssertTrue(driver.press("Add alarm"))
        let second = units + "/oton-alarm-2.timer"
        try await pollUntilTrue(timeout: 60, "the second alarm's timer written") { FileManager.default.fileExists(atPath: second) }
        let daily = (try? String(contentsOfFile: second, encoding: .utf8)) ?? ""
        XCTAssertTrue(daily.contains("OnCalendar=*-*-* 07:30:00"), daily)
        XCTAssertFalse(daily.contains("X-OtonDays"), daily)
    }
}
