import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window`'s history, share, favourites editing, sleep timer, recording, preferences and
/// styles, driven through AT-SPI on Xvfb as WindowTests does, each checked where it acts: the
/// player (`oton ctl status`), plugins.json, the files written, the clipboard, the labels.
final class WindowFeatureTests: XCTestCase {
    private var server: IcecastServer?
    private var desktop: DesktopSession?
    private var peers: [ManagedProcess] = []

    override func tearDown() async throws {
        for peer in peers { peer.stop(grace: 10) }
        peers = []
        server?.stop()
        server = nil
        desktop?.stop()
        desktop = nil
    }

    private static func plugin(_ id: String, _ product: String, config: String = "{}") -> String {
        #"{"id": "\#(id)", "path": "\#(TestPaths.pluginLibrary(product))", "enabled": true, "config": \#(config)}"#
    }

    /// History (today's, a search over all, copy a line), share, record the station, the current station marked, rename,
    /// a custom sleep timer and "after this track", record this track, and in Preferences (Ctrl+,) the plugins and the alarms.
    func testHistoryShareRenameSleepRecordAndPreferences() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Lab FM")
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let folder = try TemporaryDirectory(self)
        let out = folder.file("recorded")
        let plugins = [
            Self.plugin("org.oton.history", "OtonHistory", config: #"{"min_live_seconds": 1}"#),  // (a 10 s play is no skip)
            Self.plugin("org.oton.share", "OtonShare", config: #"{"clipboard": false}"#),
            Self.plugin("org.oton.sleep-timer", "OtonSleepTimer"),
            Self.plugin("org.oton.file-sink", "OtonFileSink", config: #"{"directory": "\#(out)", "mode": "on-demand", "min_seconds": 1, "partial": "keep"}"#),
            #"{"id": "org.oton.mqtt", "path": "\#(TestPaths.pluginLibrary("OtonMQTT"))", "enabled": false}"#,
        ].joined(separator: ", ")
        let lab = server.url(mount: "/lab.mp3").absoluteString
        let driver = try WindowDriver(
            self, desktop: desktop,
            plugins: #"{"default_station": "Lab FM", "stations": [{"name": "Lab FM", "url": "\#(lab)"}, "#
                + #"{"name": "Other FM", "url": "http://127.0.0.1:9/other.mp3"}], "plugins": [\#(plugins)]}"#)
        // The desktop's music folder, where "Record this station" records (XDG user dirs, as GLib reads them).
        let music = driver.directory.file("music")
        _ = try driver.directory.write("config/user-dirs.dirs", "XDG_MUSIC_DIR=\"\(music)\"\n")
        let window = try driver.open(["--instance", "feat", "--size", "1280x800"])
        let first = driver.waitForText("Title") { $0 == "Song One" }
        XCTAssertTrue(first.matched, "saw \(first.last ?? "nothing"); log: \(driver.log)\n\(driver.tree())")

        // The station playing is marked in the favourites; the others are not.
        try await pollUntilTrue(timeout: 60, "Lab FM marked as playing") {
            driver.drive(["describe", "Lab FM", "push button"])?["description"]?.stringValue == "Playing now"
        }
        XCTAssertEqual(driver.drive(["describe", "Other FM", "push button"])?["description"]?.stringValue ?? "", "")

        // Record this track: the file sink (on demand) writes Song One once it ends (kept beside the others,
        // though the first track of a session is incomplete: "partial": "keep").
        XCTAssertTrue(driver.press("Record this track"), driver.tree())
        try await Task.sleep(nanoseconds: 2_000_000_000)
        try await server.setTitle(mount: "/lab.mp3", title: "Artist B - Song Two")
        XCTAssertTrue(driver.waitForText("Title") { $0 == "Song Two" }.matched)
        let recorded = out + "/Lab FM/Artist A - Song One.mp3"
        try await pollUntilTrue(timeout: 60, "Song One recorded at \(recorded)") { FileManager.default.fileExists(atPath: recorded) }

        // History: today's tracks from the history plugin, newest first.
        XCTAssertTrue(driver.press("History"), driver.tree())
        var lines: [String] = []
        do {
            try await pollUntilTrue(timeout: 60, "today's tracks from the history plugin") {
                lines = driver.labelNames().filter { $0.contains(" – ") && $0.hasSuffix(" · Lab FM") }
                return lines.count == 2 && lines[0].hasSuffix("Artist B – Song Two · Lab FM") && lines[1].hasSuffix("Artist A – Song One · Lab FM")
            }
        } catch {
            let asked = try? runProcess(
                TestPaths.oton, ["ctl", "--instance", "feat", "history", "--since", "today", "--format", "json"], environment: driver.environment)
            XCTFail("status: \(driver.text("History status") ?? "?"); the player: \(asked?.stdout ?? "") \(asked?.stderr ?? "")\n\(driver.tree())")
            throw error
        }
        XCTAssertEqual(driver.text("History status"), "today's tracks")

        // A search over the whole history; markup typed there is text that matches nothing.
        XCTAssertEqual(driver.drive(["type", "Search history", "song one"])?["done"]?.boolValue, true)
        try await pollUntilTrue(timeout: 60, "the search finding Song One only") {
            let found = driver.labelNames().filter { $0.contains(" – ") && $0.hasSuffix(" · Lab FM") }
            return found == [lines[1]]
        }
        XCTAssertTrue(driver.waitForText("History status") { $0 == #"tracks in the history matching "song one""# }.matched)
        XCTAssertEqual(driver.drive(["type", "Search history", #"<b>x</b> &amp;"#])?["done"]?.boolValue, true)
        XCTAssertTrue(driver.waitForText("History status") { $0 == #"no track in the history matches "<b>x</b> &amp;""# }.matched)

        // Copy a line: the clipboard has it.
        XCTAssertEqual(driver.drive(["type", "Search history", ""])?["done"]?.boolValue, true)
        XCTAssertTrue(driver.waitForButton("Copy " + lines[1]), driver.buttonNames().joined(separator: "\n"))
        XCTAssertTrue(driver.press("Copy " + lines[1]))
        try await pollUntilTrue(timeout: 60, "the line on the clipboard") { driver.clipboard() == lines[1] }

        // Share: the share plugin's text for the track playing, on the clipboard.
        XCTAssertTrue(driver.press("Share"))
        do {
            try await pollUntilTrue(timeout: 60, "the share text on the clipboard") {
                let text = driver.clipboard() ?? ""
                return text.contains("Artist B") && text.contains("Song Two") && text != lines[1]
            }
        } catch {
            let asked = try? runProcess(TestPaths.oton, ["ctl", "--instance", "feat", "share", "--format", "json"], environment: driver.environment)
            XCTFail("clipboard: \(driver.clipboard() ?? "-"); the player: \(asked?.stdout ?? "") \(asked?.stderr ?? "")\n\(driver.labelNames())")
            throw error
        }

        // Record this station: `oton record` on the station's URL, into the music folder, until stopped
        // through its control socket (it finishes its file: the track playing, into incomplete/).
        XCTAssertTrue(driver.press("Record this station"))
        let recorder = "window-record-\(window.pid)"
        try await pollUntilTrue(timeout: 60, "the station's recorder running") {
            guard let result = try? runProcess(TestPaths.oton, ["ctl", "--instance", recorder, "--json", "status"], environment: driver.environment),
                result.status == 0
            else { return false }
            return (try? JSONValue.parse(Data(result.stdout.utf8)))?["data"]?["recording"]?.int64Value == 1
        }
        XCTAssertTrue(driver.waitForButton("Stop recording this station"), driver.buttonNames().joined(separator: ", "))
        try await Task.sleep(nanoseconds: 3_000_000_000)  // some audio in the file
        XCTAssertTrue(driver.press("Stop recording this station"))
        try await pollUntilTrue(timeout: 60, "the recorder finished") {
            (try? runProcess(TestPaths.oton, ["ctl", "--instance", recorder, "status"], environment: driver.environment))?.status != 0
        }
        let written = FileManager.default.enumerator(atPath: music)?.allObjects.compactMap { $0 as? String }.filter { $0.hasSuffix(".mp3") } ?? []
        XCTAssertFalse(written.isEmpty, "a recording in \(music)")
        XCTAssertTrue(driver.waitForButton("Record this station"))

        // A custom sleep timer, then "after this track", then off: each acts on the player.
        XCTAssertTrue(driver.press("Sleep timer"))
        XCTAssertTrue(driver.waitForButton("Start sleep timer"))
        XCTAssertEqual(driver.drive(["value", "Sleep minutes", "45"])?["value"]?.numberValue, 45)
        XCTAssertTrue(driver.press("Start sleep timer"))
        try await pollUntilTrue(timeout: 60, "a 45-minute sleep timer") {
            (driver.status(instance: "feat")?["sleep"]?["seconds_left"]?.int64Value).map { (2600...2700).contains($0) } == true
        }
        XCTAssertTrue(driver.press("Sleep timer"))
        XCTAssertTrue(driver.waitForButton("After this track"))
        XCTAssertTrue(driver.press("After this track"))
        try await pollUntilTrue(timeout: 60, "sleep after this track") { driver.status(instance: "feat")?["sleep"]?["mode"]?.stringValue == "after-track" }
        XCTAssertTrue(driver.waitForText("Sleep timer") { $0 == "sleep after track" }.matched)
        XCTAssertTrue(driver.press("Sleep timer"))
        XCTAssertTrue(driver.waitForButton("Sleep timer off"))
        XCTAssertTrue(driver.press("Sleep timer off"))
        try await pollUntilTrue(timeout: 60, "the sleep timer off") { driver.status(instance: "feat").map { $0["sleep"] == nil } == true }

        // Rename a favourite through the CLI's editor: plugins.json changes atomically, the default follows, markup is a name.
        XCTAssertTrue(driver.press("Favourites"))
        XCTAssertTrue(driver.press("Edit Lab FM"))
        XCTAssertTrue(driver.waitForButton("Rename Lab FM"), "the popover opens")
        XCTAssertEqual(driver.drive(["type", "New name for Lab FM", "<i>Lab</i> & Co"])?["done"]?.boolValue, true, driver.tree())
        XCTAssertTrue(driver.press("Rename Lab FM"))
        try await pollUntilTrue(timeout: 60, "the station renamed in plugins.json") {
            let text = driver.directory.read("plugins.json")
            return text.contains(#""name": "<i>Lab</i> & Co""#) && text.contains(#""default_station": "<i>Lab</i> & Co""#) && !text.contains("Lab FM")
        }
        XCTAssertTrue(driver.waitForButton("<i>Lab</i> & Co"), "the list shows the new name as text: \(driver.buttonNames())")

        // Preferences (Ctrl+,): every plugin, enabled or not, with what it is.
        XCTAssertNotNil(driver.drive(["keys", "Control_L+comma"]))
        try await pollUntilTrue(timeout: 60, "the plugins in the preferences") {
            let labels = driver.labelNames()
            return labels.contains("Listening history") && labels.contains("org.oton.mqtt")
                && labels.contains { $0.hasPrefix("org.oton.history · enabled, version ") && $0.contains("Keeps every track heard") }
                && labels.contains("disabled")
        }

        // Alarms: added and removed through `oton alarm`'s code, as its systemd units (no user manager
        // runs here: the units are written for the next one); a bad time is refused and writes nothing.
        let units = driver.directory.file("config") + "/systemd/user"
        let timer = units + "/oton-alarm-1.timer"
        XCTAssertTrue(driver.press("Alarms"), driver.tree())
        XCTAssertEqual(driver.drive(["type", "Alarm time", "25:99"])?["done"]?.boolValue, true, driver.tree())
        XCTAssertTrue(driver.press("Add alarm"))
        XCTAssertEqual(driver.drive(["type", "Alarm time", "06:45"])?["done"]?.boolValue, true)
        XCTAssertEqual(driver.drive(["type", "Alarm station", "Other FM"])?["done"]?.boolValue, true)
        XCTAssertTrue(driver.press("Add alarm"))
        try await pollUntilTrue(timeout: 60, "the alarm's timer written") { FileManager.default.fileExists(atPath: timer) }
        XCTAssertTrue((try? String(contentsOfFile: timer, encoding: .utf8))?.contains("06:45") == true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: units + "/oton-alarm-2.timer"), "the bad time wrote nothing")
        XCTAssertTrue(driver.waitForButton("Remove alarm 1"), "the list shows it: \(driver.buttonNames())")
        XCTAssertTrue(driver.labelNames().contains("06:45 every day"), driver.labelNames().joined(separator: "\n"))
        XCTAssertTrue(driver.press("Remove alarm 1"))
        try await pollUntilTrue(timeout: 60, "the alarm's units removed") {
            !FileManager.default.fileExists(atPath: timer) && !FileManager.default.fileExists(atPath: units + "/oton-alarm-1.service")
        }
    }

    /// A window that attaches to a player already playing shows the artwork plugin's picture at once,
    /// not only from the next track on (`status` carries the last artwork).
    func testAttachingToAPlayingPlayerShowsItsArtwork() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/art.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Art FM")
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let url = server.url(mount: "/art.mp3").absoluteString
        let driver = try WindowDriver(
            self, desktop: desktop,
            plugins: #"{"stations": [{"name": "Art FM", "url": "\#(url)"}], "#
                + #""plugins": [\#(Self.plugin("org.oton.artwork", "OtonArtwork"))]}"#)
        let player = ManagedProcess(
            name: "oton play", executable: TestPaths.oton,
            arguments: ["play", "--no-tui", "--instance", "attach", "--config", driver.config],
            environment: driver.environment, stdout: FileHandle.nullDevice, stderr: FileHandle.nullDevice)
        try player.start()
        peers.append(player)
        try await pollUntilTrue(timeout: 60, "the player's artwork in its status") {
            driver.status(instance: "attach")?["artwork"]?["type"]?.stringValue == "default"
        }
        try driver.open(["--instance", "attach"])
        XCTAssertTrue(driver.waitForText("Title") { $0 == "Song One" }.matched, driver.log)
        try await pollUntilTrue(timeout: 30, "the artwork shown on attach") {
            driver.drive(["describe", "Artwork"])?["description"]?.stringValue == "No cover for this track"
        }
        XCTAssertTrue(player.isRunning, "the window attached to the player; it did not start its own")
    }

    /// Dark: a system that prefers dark (libadwaita's ADW_DEBUG_COLOR_SCHEME stands for the desktop's
    /// setting here) gets a dark window, at 1280×800 and at a phone's 390×844; the screenshots are kept.
    /// (WindowTests takes the light ones.)
    func testDarkStyleScreenshotsAtBothSizes() async throws {
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let silent = try SilentPeer()
        defer { silent.close() }
        let plugins = #"{"stations": [{"name": "Quiet FM", "url": "http://127.0.0.1:\#(silent.port)/live.mp3"}], "plugins": []}"#
        for (width, height) in [(1280, 800), (390, 844)] {
            let driver = try WindowDriver(self, desktop: desktop, plugins: plugins, extra: ["ADW_DEBUG_COLOR_SCHEME": "prefer-dark"])
            try driver.open(["--instance", "dark\(width)", "--size", "\(width)x\(height)"])
            XCTAssertTrue(driver.waitForButton("Quiet FM"), "\(driver.log)\n\(driver.tree())")
            try await Task.sleep(nanoseconds: 1_000_000_000)  // the frame after the rows (a screenshot is no assertion on time)
            let path = try driver.screenshot("window-\(width)x\(height)-dark.png", width: width, height: height)
            XCTAssertEqual(try WindowDriver.size(path), "\(width)x\(height)")
            XCTAssertGreaterThan(try WindowDriver.colourCount(path), 16, "a drawn window, not a blank screen")
            let brightness = try WindowDriver.brightness(path)
            XCTAssertLessThan(brightness, 0.35, "a dark window (mean brightness \(brightness))")
            XCTAssertGreaterThan(brightness, 0.02, "not a black screen (mean brightness \(brightness))")
            driver.stop()
        }
    }
}
