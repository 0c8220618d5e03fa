import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The now-playing plugin on a private session bus: playerctl reads and drives a
/// real pipeline through MPRIS, and a notification server records Notify calls.
final class NowPlayingTests: XCTestCase {
    private static let mprisName = "org.mpris.MediaPlayer2.oton"

    /// Points the in-process plugin at `bus` (GLib reads the variable when the plugin connects).
    private func useSessionBus(_ address: String?) {
        let previous = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        if let address { setenv("DBUS_SESSION_BUS_ADDRESS", address, 1) } else { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        addTeardownBlock {
            if let previous { setenv("DBUS_SESSION_BUS_ADDRESS", previous, 1) } else { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        }
    }

    private func startNowPlaying(
        _ harness: PlayerHarness, _ directory: TemporaryDirectory,
        config: [String: JSONValue] = [:], requests: (any PlayerRequestSink)? = nil
    ) throws -> PluginManager {
        let manager = PluginManager(
            bus: harness.bus, requests: requests ?? harness.player,
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.now-playing", path: TestPaths.pluginLibrary("OtonNowPlaying"),
                enabled: true, config: .object(config), location: "plugins[0]")
        ])
        guard case .running = reports.first?.status else {
            manager.shutdown()
            throw XCTSkip("now-playing did not start: \(reports)")
        }
        return manager
    }

    /// `playerctl -p oton metadata --format …` once it shows `expected` (the plugin updates asynchronously).
    private func playerctl(
        _ bus: PrivateSessionBus, _ arguments: [String], until expected: @escaping @Sendable (String) -> Bool,
        timeout: TimeInterval = 10
    ) async throws -> String {
        try await pollUntil(timeout: timeout, interval: 0.1, "playerctl \(arguments.joined(separator: " "))") {
            let result = try bus.run("/usr/bin/playerctl", ["-p", "oton"] + arguments)
            let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return result.status == 0 && expected(text) ? text : nil
        }
    }

    func testPlayerctlShowsAndControlsARealPipelineAndEachTrackIsNotifiedOnce() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try await NotificationServer.start(on: bus)
        defer { notifications.stop() }
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/np.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        useSessionBus(bus.address)

        let directory = try TemporaryDirectory(self)
        let harness = PlayerHarness(url: server.url(mount: "/np.mp3").absoluteString, name: "Oton Test FM")
        let manager = try startNowPlaying(harness, directory, config: ["notification_timeout_ms": .number(3000)])
        defer { manager.shutdown() }
        let ready = try XCTUnwrap(harness.events.wait(for: "org.oton.now-playing.ready"), "the plugin owns its bus name")
        XCTAssertEqual(ready.field("bus_name"), Self.mprisName)

        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", artist: "Artist A"))
        let first = try await playerctl(bus, ["metadata", "--format", "{{title}}|{{artist}}|{{album}}|{{mpris:trackid}}|{{xesam:url}}"]) {
            $0.hasPrefix("Song One|")
        }
        let parts = first.components(separatedBy: "|").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        XCTAssertEqual(parts[1], "Artist A")
        XCTAssertFalse(parts[2].isEmpty, "the station is the album: \(first)")
        XCTAssertTrue(parts[3].hasPrefix("/org/oton/track/"), first)
        XCTAssertEqual(parts[4], server.url(mount: "/np.mp3").absoluteString)
        _ = try await playerctl(bus, ["status"]) { $0 == "Playing" }

        let firstNote = try await notifications.waitForCall { $0.summary == "Song One" }
        XCTAssertEqual(firstNote.appName, "oton")
        XCTAssertEqual(firstNote.hints["desktop-entry"], OTON_DESKTOP_APP_ID, "the installed desktop file's id names the sender")
        XCTAssertEqual(firstNote.replacesID, 0)
        XCTAssertTrue(firstNote.body.hasPrefix("Artist A — "), firstNote.body)
        XCTAssertEqual(firstNote.timeout, 3000)
        XCTAssertNil(firstNote.hints["image-path"], "no artwork yet")

        // A new title: a new trackid, a notification that replaces the first instead of stacking.
        let changed = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/np.mp3", title: "Artist B - Song Two")
        XCTAssertNotNil(harness.waitForTrack(title: "Song Two", after: changed))
        let second = try await playerctl(bus, ["metadata", "--format", "{{title}}|{{artist}}|{{mpris:trackid}}"]) { $0.hasPrefix("Song Two|") }
        XCTAssertEqual(second.components(separatedBy: "|")[1], "Artist B")
        XCTAssertNotEqual(second.components(separatedBy: "|")[2], parts[3], "a new trackid per track")
        let secondNote = try await notifications.waitForCall { $0.summary == "Song Two" }
        XCTAssertNotEqual(secondNote.replacesID, 0, "replaces the previous notification")

        // A jingle and the station's own name are not announced, but still shown in MPRIS.
        let jingle = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/np.mp3", title: "Oton - Station Jingle")
        XCTAssertNotNil(harness.waitForTrack(title: "Station Jingle", after: jingle))
        _ = try await playerctl(bus, ["metadata", "title"]) { $0 == "Station Jingle" }

        // Volume through MPRIS reaches the player and comes back as the property.
        let volumeResult = try bus.run("/usr/bin/playerctl", ["-p", "oton", "volume", "0.3"])
        XCTAssertEqual(volumeResult.status, 0, volumeResult.stderr)
        XCTAssertNotNil(harness.events.wait(for: "volume") { $0.field("volume") == "0.300" }, "the player's volume changed")
        _ = try await playerctl(bus, ["volume"]) { Double($0).map { abs($0 - 0.3) < 0.001 } == true }

        // play-pause pauses the real pipeline.
        let paused = Clock.monotonicNanoseconds()
        let toggle = try bus.run("/usr/bin/playerctl", ["-p", "oton", "play-pause"])
        XCTAssertEqual(toggle.status, 0, toggle.stderr)
        XCTAssertNotNil(harness.waitForState("paused", after: paused))
        _ = try await playerctl(bus, ["status"]) { $0 == "Paused" }
        XCTAssertEqual(harness.player.state, .paused)

        XCTAssertEqual(notifications.calls.filter { $0.summary == "Station Jingle" }, [], "jingles are not announced")
        XCTAssertEqual(notifications.calls.filter { $0.summary == "Song One" }.count, 1, "one notification per track")

        manager.shutdown()
        XCTAssertFalse(try bus.hasOwner(Self.mprisName), "the name is released when the plugin stops")
    }

    func testRootInterfaceAndArtworkEventAndInstanceNameWhenTaken() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try await NotificationServer.start(on: bus)
        defer { notifications.stop() }
        useSessionBus(bus.address)
        let directory = try TemporaryDirectory(self)
        let harness = PlayerHarness(url: "http://127.0.0.1:9/never-started")
        let requests = RecordingRequests()
        let manager = try startNowPlaying(harness, directory, requests: requests)
        defer { manager.shutdown() }
        XCTAssertEqual(harness.events.wait(for: "org.oton.now-playing.ready")?.field("bus_name"), Self.mprisName)

        // Root interface properties, read the way any client does.
        let identity = try bus.run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=\(Self.mprisName)", "/org/mpris/MediaPlayer2",
                "org.freedesktop.DBus.Properties.GetAll", "string:org.mpris.MediaPlayer2",
            ])
        XCTAssertEqual(identity.status, 0, identity.stderr)
        for expected in [
            "\"Identity\"", "\"Oton\"", "\"DesktopEntry\"", "\"\(OTON_DESKTOP_APP_ID)\"", "\"CanQuit\"", "\"SupportedUriSchemes\"", "\"https\"",
            "\"audio/mpeg\"",
        ] {
            XCTAssertTrue(identity.stdout.contains(expected), "\(expected) in \(identity.stdout)")
        }
        XCTAssertTrue(identity.stdout.contains("\"CanRaise\"\n         variant             boolean false"), "no window to raise: \(identity.stdout)")
        let player = try bus.run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=\(Self.mprisName)", "/org/mpris/MediaPlayer2",
                "org.freedesktop.DBus.Properties.GetAll", "string:org.mpris.MediaPlayer2.Player",
            ])
        XCTAssertTrue(player.stdout.contains("\"CanSeek\"\n         variant             boolean false"), player.stdout)
        XCTAssertTrue(player.stdout.contains("\"CanControl\"\n         variant             boolean true"), player.stdout)
        XCTAssertTrue(player.stdout.contains("\"MaximumRate\"\n         variant             double 1"), player.stdout)

        // A track, then its artwork: mpris:artUrl and a replacing notification with image-path.
        harness.bus.publish(.track(TrackInfo(title: "Song One", artist: "Artist A", station: "Oton FM"), sequence: 7))
        let note = try await notifications.waitForCall { $0.summary == "Song One" }
        let artwork = try directory.write("cover art.png", "not read by the plugin")
        let kind = try XCTUnwrap(harness.bus.registry.kind(for: OTON_EVENT_NAME_ARTWORK_READY))
        harness.bus.publish(
            BusEvent(
                kind: kind, name: OTON_EVENT_NAME_ARTWORK_READY, source: "org.oton.artwork",
                extraFields: [
                    ("path", artwork), ("url", "http://127.0.0.1/x.png"), ("type", "cover"),
                    ("color", "#102030"), ("title", "Song One"), ("sequence", "7"),
                ]))
        let artURL = try await playerctl(bus, ["metadata", "mpris:artUrl"]) { $0.hasPrefix("file://") }
        XCTAssertEqual(artURL, "file://" + directory.path + "/cover%20art.png")
        let withImage = try await notifications.waitForCall { $0.hints["image-path"] != nil }
        XCTAssertEqual(withImage.hints["image-path"], artwork)
        XCTAssertEqual(withImage.summary, "Song One")
        XCTAssertEqual(note.replacesID, 0)
        XCTAssertEqual(withImage.replacesID, 1, "replaces the first notification (the server numbers from 1)")

        // Methods become requests; Seek is a no-op; Quit ends oton.
        for method in ["Play", "Pause", "PlayPause", "Stop", "Seek int64:5000000"] {
            let words = method.split(separator: " ").map(String.init)
            let result = try bus.run(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=\(Self.mprisName)", "/org/mpris/MediaPlayer2",
                    "org.mpris.MediaPlayer2.Player.\(words[0])",
                ] + words.dropFirst())
            XCTAssertEqual(result.status, 0, "\(method): \(result.stderr)")
        }
        XCTAssertEqual(
            try bus.run(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=\(Self.mprisName)", "/org/mpris/MediaPlayer2",
                    "org.mpris.MediaPlayer2.Quit",
                ]
            ).status, 0)
        XCTAssertEqual(requests.wait(forCount: 5), [.play, .pause, .playPause, .stop, .quit])

        // A second oton on the same bus gets the instance name.
        let other = PlayerHarness(url: "http://127.0.0.1:9/never-started")
        let otherManager = try startNowPlaying(other, directory, requests: RecordingRequests())
        defer { otherManager.shutdown() }
        let name = try XCTUnwrap(other.events.wait(for: "org.oton.now-playing.ready")?.field("bus_name"))
        XCTAssertEqual(name, "\(Self.mprisName).instance\(getpid())")
        XCTAssertTrue(try bus.hasOwner(name))
    }

    func testWithoutASessionBusThePluginSaysSoOnceAndPlaybackIsUnaffected() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("short.mp3")
        let encode = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=100", "!", "audioconvert",
                "!", "lamemp3enc", "!", "filesink", "location=\(file)",
            ])
        XCTAssertEqual(encode.status, 0, encode.stderr)
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [], "plugins": [{"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true}]}
            """)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(directory.file("no-such-bus"))"
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment.removeValue(forKey: "DISPLAY")
        let result = try runProcess(TestPaths.oton, ["play", file, "--headless", "--no-tui", "--config", config], environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("org.oton.now-playing") }
        XCTAssertEqual(lines.filter { $0.contains("no session bus") }.count, 1, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("error") || $0.contains("warning") }, lines.joined(separator: "\n"))
    }
}
