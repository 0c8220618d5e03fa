import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window` in a real display server (Xvfb) with a private session bus and the AT-SPI bus,
/// driven as a screen reader drives it (pyatspi, by accessible names), against a real Icecast,
/// checked through `oton ctl`. Screenshots go to .build/test-output/window.
final class WindowTests: XCTestCase {
    private var server: IcecastServer?
    private var desktop: DesktopSession?

    override func tearDown() async throws {
        server?.stop()
        server = nil
        desktop?.stop()
        desktop = nil
    }

    private func startDesktop(width: Int = 1280, height: Int = 844) async throws -> DesktopSession {
        let session = try await DesktopSession.start(width: width, height: height)
        desktop = session
        return session
    }

    private static func plugins(_ stations: [(String, String)], default name: String? = nil, sleepTimer: Bool = false) -> String {
        let list = stations.map { "{\"name\": \(JSONText.quoted($0.0)), \"url\": \(JSONText.quoted($0.1))}" }.joined(separator: ",\n")
        let chosen = name.map { "\"default_station\": \(JSONText.quoted($0)), " } ?? ""
        // With the sleep timer, the artwork plugin too: its picture (the built-in one: no cover or logo here) and colour.
        let plugins =
            sleepTimer
            ? #"{"id": "org.oton.sleep-timer", "path": "\#(TestPaths.pluginLibrary("OtonSleepTimer"))", "enabled": true}, "#
                + #"{"id": "org.oton.artwork", "path": "\#(TestPaths.pluginLibrary("OtonArtwork"))", "enabled": true}"# : ""
        return "{\(chosen)\"stations\": [\(list)], \"plugins\": [\(plugins)]}"
    }

    /// The whole path: the window starts its player, shows the lab station's title and follows an ICY
    /// change within 5 s; Pause and Play act on the player; markup in a title stays text; the volume
    /// slider sets the player's volume; a station that cannot be reached shows its error; Quit stops
    /// the player the window started.
    func testWindowPlaysFollowsTitlesAndDrivesThePlayer() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Lab FM")
        let desktop = try await startDesktop()
        let dead = "http://127.0.0.1:\(try FreePort.allocate())/gone.mp3"
        let driver = try WindowDriver(
            self, desktop: desktop,
            plugins: Self.plugins(
                [("Lab FM", server.url(mount: "/lab.mp3").absoluteString), ("Dead FM", dead)], default: "Lab FM",
                sleepTimer: true))
        let started = Date()
        let window = try driver.open(["--instance", "win", "--size", "1280x800"])

        let first = driver.waitForText("Title") { $0 == "Song One" }
        XCTAssertTrue(first.matched, "the title label shows the station's title; saw \(first.last ?? "nothing"); log: \(driver.log)\n\(driver.tree())")
        print("[measure] oton window: launch → title shown in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        XCTAssertEqual(driver.text("Artist"), "Artist A")
        XCTAssertEqual(
            driver.status(instance: "win")?["state"]?.stringValue.map { ["playing", "buffering"].contains($0) }, true,
            "the window started a player as instance win")

        // The artwork plugin's picture replaces the window's own (here its built-in one: no cover or logo).
        try await pollUntilTrue(timeout: 60, "the artwork plugin's picture") {
            driver.drive(["describe", "Artwork"])?["description"]?.stringValue == "No cover for this track"
        }

        // Every button has a name a screen reader can say (the header bar's, the controls, the favourites).
        let names = driver.buttonNames()
        XCTAssertFalse(names.isEmpty || names.contains(""), "unnamed buttons: \(driver.tree())")
        for name in ["Previous station", "Stop", "Next station", "Sleep timer", "Lab FM", "Dead FM"] {
            XCTAssertTrue(names.contains(name), "\(name) in \(names)")
        }

        // Pause, then find "Play" by its accessible name and press it: the player plays again.
        XCTAssertTrue(driver.waitForButton("Pause"), "a playing player offers Pause: \(driver.buttonNames())")
        XCTAssertTrue(driver.press("Pause"))
        try await pollUntilTrue(timeout: 60, "the player paused") { driver.status(instance: "win")?["state"]?.stringValue == "paused" }
        XCTAssertTrue(driver.waitForButton("Play"), "a paused player offers Play: \(driver.buttonNames())")
        XCTAssertTrue(driver.press("Play"))
        try await pollUntilTrue(timeout: 60, "the player playing again") { driver.status(instance: "win")?["state"]?.stringValue == "playing" }
        XCTAssertTrue(driver.waitForText("State") { $0 == "playing" }.matched)

        // An ICY title change reaches the title label within 5 s (the driver polls in one process, every 50 ms;
        // it starts while the change is sent, so its own start-up overlaps the wait).
        // Beside it, `oton ctl subscribe` says when the player's bus carried the change (how much is the window's).
        let events = driver.directory.file("events.jsonl")
        FileManager.default.createFile(atPath: events, contents: nil)
        let subscriber = ManagedProcess(
            name: "oton ctl subscribe", executable: TestPaths.oton, arguments: ["ctl", "--instance", "win", "subscribe"],
            environment: driver.environment, stdout: FileHandle(forWritingAtPath: events))
        try subscriber.start()
        defer { subscriber.stop() }
        try await pollUntilTrue(timeout: 60, "the subscription") { driver.directory.read("events.jsonl").contains("\"event\"") }
        let sent = Date()
        let waiting = Task.detached { driver.drive(["wait-text", "Title", "Song Two", "60"]) }
        try await server.setTitle(mount: "/lab.mp3", title: "Artist B - Song Two")
        let onBus = try await pollUntil(timeout: 60, "the track event on the bus") {
            driver.directory.read("events.jsonl").contains("\"title\":\"Song Two\"") ? Date().timeIntervalSince(sent) : nil
        }
        let changed = await waiting.value
        let seconds = Date().timeIntervalSince(sent)
        XCTAssertEqual(changed?["text"]?.stringValue, "Song Two", "the title label follows the ICY change")
        // Of the ~4 s an idle machine measures, the window adds ~0.06 s: the rest is the stream's own delay
        // (Icecast's queue and the network buffer before the title's audio plays). The window's share is
        // bounded at 5 s; the whole path gets a margin a loaded CI machine keeps.
        XCTAssertLessThan(seconds - onBus, 5, "the title label follows the bus's track event within 5 s")
        XCTAssertLessThan(seconds, 30, "the title follows an ICY change")
        print(
            "[measure] oton window: ICY title change sent → track event on the bus in \(String(format: "%.2f", onBus)) s, "
                + "→ title label changed in \(String(format: "%.2f", seconds)) s")

        // Pango markup in a title is text: the label's text is the title the player has, character for
        // character (the host decodes character references such as &amp; itself; tags stay).
        let markup = #"<b>Bold</b> &amp; <span size="99999">big</span>"#
        try await server.setTitle(mount: "/lab.mp3", title: "Artist C - " + markup)
        let marked = driver.waitForText("Title") { $0.contains("Bold") }
        let playerTitle = driver.status(instance: "win")?["title"]?.stringValue
        XCTAssertEqual(marked.last, playerTitle, "the label shows the player's title as text")
        XCTAssertEqual(marked.last, #"<b>Bold</b> & <span size="99999">big</span>"#, "tags stay visible characters")

        // The tracks heard, newest first, under "History" (a plain-text row each): without the history
        // plugin in the player, those heard since the window opened, and the page says so.
        XCTAssertTrue(driver.press("History"), driver.tree())
        try await pollUntilTrue(timeout: 60, "the history rows") {
            let rows = driver.drive(["names", "label"])?["names"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let songs = rows.filter { $0.contains(" – ") }
            return songs.count >= 3 && songs[0].contains("Artist C – <b>Bold</b>") && songs[1].contains("Artist B – Song Two · Lab FM")
                && songs[2].contains("Artist A – Song One · Lab FM")
        }
        XCTAssertEqual(driver.text("History status"), "the player keeps no history (its history plugin is off): tracks heard since the window opened")
        XCTAssertTrue(driver.press("Favourites"))

        // The volume slider acts on the player.
        XCTAssertEqual(driver.drive(["value", "Volume", "40"])?["value"]?.numberValue, 40)
        try await pollUntilTrue(timeout: 60, "the player's volume at 40 %") { driver.status(instance: "win")?["volume"]?.int64Value == 40 }

        // The sleep timer's presets act on the player (its plugin), and the window counts down.
        XCTAssertTrue(driver.press("Sleep timer"))
        XCTAssertTrue(driver.waitForButton("30 minutes"), "the presets open: \(driver.buttonNames())")
        XCTAssertTrue(driver.press("30 minutes"))
        try await pollUntilTrue(timeout: 60, "the player's sleep timer set") {
            (driver.status(instance: "win")?["sleep"]?["seconds_left"]?.int64Value).map { (1700...1800).contains($0) } == true
        }
        XCTAssertTrue(driver.waitForText("Sleep timer") { $0.hasPrefix("sleep 29:") || $0 == "sleep 30:00" }.matched, driver.tree())

        let wide = try driver.screenshot("window-1280x800-light.png", width: 1280, height: 800)
        XCTAssertEqual(try WindowDriver.size(wide), "1280x800")
        XCTAssertGreaterThan(try WindowDriver.colourCount(wide), 16, "the screenshot shows a drawn window, not a blank screen")
        XCTAssertGreaterThan(try WindowDriver.brightness(wide), 0.6, "light: the style a system without a preference gets")

        XCTAssertTrue(driver.press("Sleep timer"))
        XCTAssertTrue(driver.waitForButton("Sleep timer off"))
        XCTAssertTrue(driver.press("Sleep timer off"))
        try await pollUntilTrue(timeout: 60, "the sleep timer off") { driver.status(instance: "win").map { $0["sleep"] == nil } == true }

        // A favourite that cannot be reached: the window says so, with the host's message and suggestion.
        XCTAssertTrue(driver.waitForButton("Dead FM"), "the favourites list shows every station: \(driver.buttonNames())")
        XCTAssertTrue(driver.press("Dead FM"))
        // A listener's player does not give up (issue 54 §1): it waits for the station and says so.
        let waits = driver.waitForText("State", timeout: 120) { $0.hasPrefix("waiting for the station to come back") }
        XCTAssertTrue(waits.matched, "saw \(waits.last ?? "nothing")")
        let error = driver.text("Error") ?? ""
        let reported = driver.status(instance: "win")?["error"]?["message"]?.stringValue ?? "?"
        XCTAssertTrue(
            error.hasPrefix(reported) && error.count > reported.count,
            "the error label has the player's message and its suggestion: \(error) / \(reported)")

        // Ctrl+1 plays the first favourite, as the keyboard types it (XTest, through the AT-SPI registry).
        XCTAssertNotNil(driver.drive(["keys", "Control_L+1"]))
        try await pollUntilTrue(timeout: 60, "Ctrl+1 switching back to Lab FM") { driver.status(instance: "win")?["station"]?.stringValue == "Lab FM" }
        XCTAssertTrue(driver.waitForText("State") { $0 == "playing" }.matched, "the error is gone once Lab FM plays")

        // A second `oton window` raises the first and ends.
        let second_ = try driver.open(["--instance", "win"], log: "second.log")
        XCTAssertTrue(second_.waitForExit(timeout: 60), "the second window hands over to the first")
        XCTAssertEqual(second_.terminationStatus, 0, driver.directory.read("second.log"))
        XCTAssertTrue(window.isRunning)

        // Ctrl+Q: the window ends, and so does the player it started.
        let player = DesktopSession.descendants(of: window.pid)
        XCTAssertFalse(player.isEmpty, "the window's player runs below it")
        XCTAssertNotNil(driver.drive(["keys", "Control_L+q"]))
        XCTAssertTrue(window.waitForExit(timeout: 60), "Quit ends the window")
        try await pollUntilTrue(timeout: 60, "the window's player gone") { player.allSatisfy { kill($0, 0) != 0 } }
        XCTAssertNil(driver.status(instance: "win"), "no player is left behind")
    }

    /// Search: the directory (a local server speaking Radio Browser's API) answers, a result plays, and
    /// its "Add to favourites" writes it to plugins.json through the CLI's editor; the list shows it.
    func testSearchPlaysAResultAndAddsItToTheFavourites() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/home.mp3", format: .mp3, initialTitle: "Home - Song", stationName: "Home FM")
        _ = try await server.startSource(mount: "/found.mp3", format: .mp3, initialTitle: "Found - Song", stationName: "Found FM")
        let found = server.url(mount: "/found.mp3").absoluteString
        let directory = try FakeStationDirectory(stations: [
            #"{"stationuuid": "11111111-2222-3333-4444-555555555555", "name": "Found FM", "url": "\#(found)", "codec": "MP3", "bitrate": 128, "#
                + #""countrycode": "DE", "tags": "jazz,swing", "lastcheckok": 1}"#
        ])
        defer { directory.stop() }
        let desktop = try await startDesktop()
        let plugins =
            #"{"directory_server": "\#(directory.url)", "default_station": "Home FM", "#
            + #""stations": [{"name": "Home FM", "url": "\#(server.url(mount: "/home.mp3").absoluteString)"}], "plugins": []}"#
        let driver = try WindowDriver(self, desktop: desktop, plugins: plugins)
        try driver.open(["--instance", "search"])
        XCTAssertTrue(driver.waitForButton("Home FM"), "\(driver.log)\n\(driver.tree())")

        XCTAssertTrue(driver.press("Search"), driver.tree())
        // The page is built when first shown: its entry appears on the AT-SPI bus a moment after the switch.
        try await pollUntilTrue(timeout: 60, "the search page built") { driver.isShowing("Search stations") }
        // A directory that fails says so in words for people, on a status page in place of the results.
        XCTAssertEqual(driver.drive(["type", "Search stations", "broken"])?["done"]?.boolValue, true, driver.tree())
        let failed = driver.waitForText("Search status") { $0 == "The station directory is not working right now" }
        XCTAssertTrue(failed.matched, "saw \(failed.last ?? "nothing")")
        try await pollUntilTrue(timeout: 30, "the status page's advice") { driver.labelNames().contains("Try again in a few minutes.") }
        XCTAssertFalse(driver.labelNames().contains { $0.contains("127.0.0.1") }, "no server address for people")
        // A directory with nothing for the query says so (the CLI ends that search with status 1, as a failure).
        XCTAssertEqual(driver.drive(["type", "Search stations", "nothing"])?["done"]?.boolValue, true, driver.tree())
        let nothing = driver.waitForText("Search status") { $0 == #"the directory has nothing for "nothing""# }
        XCTAssertTrue(nothing.matched, "saw \(nothing.last ?? "nothing")")
        try await pollUntilTrue(timeout: 30, "the status page: no stations found") { driver.labelNames().contains("No stations found") }
        XCTAssertEqual(driver.drive(["type", "Search stations", "found"])?["done"]?.boolValue, true, driver.tree())
        let row = "Found FM · DE · MP3 128 kbps · jazz, swing"
        XCTAssertTrue(driver.waitForButton(row), "the result shows: \(driver.buttonNames())\n\(driver.text("Search status") ?? "")")
        XCTAssertTrue(driver.press(row))
        try await pollUntilTrue(timeout: 60, "the result playing") { driver.status(instance: "search")?["url"]?.stringValue == found }

        XCTAssertTrue(driver.press("Add Found FM to favourites"))
        try await pollUntilTrue(timeout: 60, "Found FM in plugins.json") { driver.directory.read("plugins.json").contains(#""Found FM""#) }
        XCTAssertTrue(driver.press("Favourites"))
        XCTAssertTrue(driver.waitForButton("Found FM"), "the favourites show the added station: \(driver.buttonNames())")

        // Each favourite's Edit: move up, make default, remove, through the CLI's editor (plugins.json changes).
        let written = { driver.directory.read("plugins.json") }
        XCTAssertTrue(driver.press("Edit Found FM"))
        XCTAssertTrue(driver.waitForButton("Move Found FM up"), "the popover opens")
        XCTAssertTrue(driver.press("Move Found FM up"))
        try await pollUntilTrue(timeout: 60, "Found FM moved above Home FM") {
            let text = written()
            guard let found = text.range(of: #""Found FM""#), let home = text.range(of: #""name": "Home FM""#) else { return false }
            return found.lowerBound < home.lowerBound
        }
        XCTAssertTrue(driver.press("Edit Found FM"))
        XCTAssertTrue(driver.waitForButton("Make Found FM the default"), "the popover opens")
        XCTAssertTrue(driver.press("Make Found FM the default"))
        try await pollUntilTrue(timeout: 60, "Found FM the default") { written().contains(#""default_station": "Found FM""#) }
        XCTAssertTrue(driver.press("Edit Home FM"))
        XCTAssertTrue(driver.waitForButton("Remove Home FM"), "the popover opens")
        XCTAssertTrue(driver.press("Remove Home FM"))
        try await pollUntilTrue(timeout: 60, "Home FM removed") { !written().contains("Home FM") }
        // (The list is the player's: the station it was started with stays there, playable, until it quits.)
        XCTAssertTrue(driver.waitForButton("Found FM"))
    }

    /// 10,000 favourites: the window opens and stays responsive (a list view makes rows only for
    /// what is on screen), at a phone's size.
    func testTenThousandStationsAtPhoneSize() async throws {
        let desktop = try await startDesktop(width: 1280, height: 844)
        // The station played is a peer that never answers: the player stays connecting (it would give up
        // and quit on a refused one before a loaded machine reaches the end of the test).
        let silent = try SilentPeer()
        defer { silent.close() }
        let stations = (1...10_000).map { ("Station \($0)", $0 == 1 ? "http://127.0.0.1:\(silent.port)/live.mp3" : "http://127.0.0.1:9/\($0).mp3") }
        let driver = try WindowDriver(self, desktop: desktop, plugins: Self.plugins(stations, default: "Station 1"))
        let started = Date()
        let window = try driver.open(["--instance", "many", "--size", "390x844"])
        XCTAssertTrue(driver.waitForButton("Station 1", timeout: 120), "the first station shows: \(driver.log)\n\(driver.tree())")
        // The list is the player's: it runs below the window by now.
        let player = DesktopSession.descendants(of: window.pid)
        print("[measure] oton window: 10,000 stations → first row shown in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        let rows = driver.buttonNames().filter { $0.hasPrefix("Station ") }
        XCTAssertLessThan(rows.count, 1000, "only rows near the screen exist (GtkListView keeps about 200), not 10,000")
        XCTAssertTrue(driver.waitForButton("Next station"), "the controls answer while the list is long")
        let narrow = try driver.screenshot("window-390x844-light.png", width: 390, height: 844)
        XCTAssertEqual(try WindowDriver.size(narrow), "390x844")
        XCTAssertGreaterThan(try WindowDriver.colourCount(narrow), 16, "the screenshot shows a drawn window, not a blank screen")
        XCTAssertGreaterThan(try WindowDriver.brightness(narrow), 0.6, "light: the style a system without a preference gets")

        // A window that dies without a word (SIGKILL) takes its player along: its lifeline closes.
        XCTAssertFalse(player.isEmpty, "the window's player runs below it")
        window.kill()
        try await pollUntilTrue(timeout: 60, "the player of a killed window gone") { player.allSatisfy { kill($0, 0) != 0 } }
    }

    /// Without a display: one line that says so, exit 5, and no player started.
    func testNoDisplaySaysSoInOneLine() throws {
        let directory = try TemporaryDirectory(self)
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        environment["XDG_RUNTIME_DIR"] = directory.path
        let result = try runProcess(TestPaths.oton, ["window"], environment: environment)
        XCTAssertEqual(result.status, 5, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("oton window: no display"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("oton/default.sock")), "no player was started")
    }
}
