import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// A station switch ends the song (issue 23.1): switching from a station with a title to one that
/// has not sent any must not leave the old song, codec and bitrate on show. Two real Icecast mounts;
/// the Ogg one never sends a title nor a stream name, so nothing but the switch itself can end the song.
final class SwitchEndsTrackTests: XCTestCase {
    func testSwitchToAStationWithoutATitleEndsTheOldSong() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Kino - Blood Type", stationName: "Lab MP3")
        _ = try await server.startSource(mount: "/lab.ogg", format: .ogg, initialTitle: "", stationName: "")
        let ogg = server.url(mount: "/lab.ogg").absoluteString
        let plugins = """
            {"stations": [{"name": "Lab MP3", "url": "\(server.url(mount: "/lab.mp3"))"}, {"name": "Lab Ogg", "url": "\(ogg)"}],
             "plugins": []}
            """
        let oton = try OtonProcess(self, arguments: ["play", "--headless", "Lab MP3"], plugins: plugins, instance: "x")
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        let song = try XCTUnwrap(
            events.waitForEvent("track", timeout: 30) { $0["title"] == "Blood Type" },
            "Lab MP3 plays: \(oton.directory.read("stderr.log"))")
        let songSequence = try XCTUnwrap(song["sequence"].flatMap(UInt64.init))
        let playing = try status(oton)
        XCTAssertEqual(playing["artist"] as? String, "Kino", "\(playing)")

        XCTAssertEqual(try oton.ctl(["next"]).status, 0)
        let ended = try XCTUnwrap(
            events.waitForEvent("track", timeout: 30) { ($0["sequence"].flatMap(UInt64.init) ?? 0) > songSequence },
            "the switch ends the song with a track event: \(oton.directory.read("stderr.log"))")
        XCTAssertNil(ended["title"], "\(ended)")
        XCTAssertNil(ended["artist"], "\(ended)")
        XCTAssertNil(ended["codec"], "the old station's codec is not the new one's: \(ended)")
        XCTAssertNil(ended["bitrate"], "\(ended)")
        XCTAssertEqual(ended["station"], "Lab Ogg")
        XCTAssertEqual(ended["stream_url"], ogg)

        XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, "Lab Ogg plays")
        let now = try status(oton)
        XCTAssertEqual(now["station"] as? String, "Lab Ogg", "\(now)")
        XCTAssertNil(now["title"], "\(now)")
        XCTAssertNil(now["artist"], "\(now)")
        XCTAssertNotEqual(now["codec"] as? String, "MPEG-1 Layer 3 (MP3)", "\(now)")
        XCTAssertNotEqual(now["bitrate"] as? String, "128000", "\(now)")
        XCTAssertEqual(try oton.ctl(["quit"]).status, 0)
        oton.process.waitUntilExit()
    }

    /// A reconnect that lands on another stream (the station's playlist now names another URL) is
    /// another station's sound: the song ends there too, under a new sequence.
    func testAReconnectToAnotherStreamURLEndsTheSong() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let http = try LocalHTTPServer.start()
        defer { http.stop() }
        let mp3 = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Kino - Blood Type", stationName: "Lab MP3")
        _ = try await server.startSource(mount: "/lab.ogg", format: .ogg, initialTitle: "", stationName: "")
        let ogg = server.url(mount: "/lab.ogg").absoluteString
        func playlist(_ entry: String) -> CannedResponse {
            CannedResponse(headers: ["Content-Type": "audio/x-mpegurl"], body: Data("#EXTM3U\n\(entry)\n".utf8))
        }
        http.setRoute("/lab.m3u", playlist(server.url(mount: "/lab.mp3").absoluteString))
        let oton = try OtonProcess(
            self, arguments: ["play", "--headless", "Lab"],
            plugins: """
                {"stations": [{"name": "Lab", "url": "\(http.url("/lab.m3u"))"}], "plugins": []}
                """)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        let song = try XCTUnwrap(events.waitForEvent("track", timeout: 30) { $0["title"] == "Blood Type" }, oton.directory.read("stderr.log"))
        let songSequence = try XCTUnwrap(song["sequence"].flatMap(UInt64.init))

        http.setRoute("/lab.m3u", playlist(ogg))
        mp3.stop()  // the connection drops; the reconnect resolves the playlist again
        let ended = try XCTUnwrap(
            events.waitForEvent("track", timeout: 40) { ($0["sequence"].flatMap(UInt64.init) ?? 0) > songSequence },
            "the reconnect to another URL ends the song: \(oton.directory.read("stderr.log"))")
        XCTAssertNil(ended["title"], "\(ended)")
        XCTAssertNil(ended["codec"], "\(ended)")
        XCTAssertEqual(ended["stream_url"], ogg)
        XCTAssertEqual(ended["station"], "Lab")
    }

    /// The desktop follows the same event: MPRIS drops the old song and shows the new station and URL,
    /// and the history closes the old song's row while the new station plays on.
    func testMprisAndHistoryFollowTheSwitch() async throws {
        let directory = try TemporaryDirectory(self)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Kino - Blood Type", stationName: "Lab MP3")
        _ = try await server.startSource(mount: "/lab.ogg", format: .ogg, initialTitle: "", stationName: "")
        let ogg = server.url(mount: "/lab.ogg").absoluteString
        let history = directory.file("history.sqlite")
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Lab MP3", "url": "\(server.url(mount: "/lab.mp3"))"}, {"name": "Lab Ogg", "url": "\(ogg)"}],
             "plugins": [{"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "config": {"notifications": false}},
                         {"id": "org.oton.history", "path": "libOtonHistory.so", "config": {"database": "\(history)"}}]}
            """)
        let (oton, log) = try bus.startOton(["play", "Lab MP3", "--headless", "--no-tui", "--no-control", "--config", config], in: directory)
        defer { oton.stop() }

        func metadata(_ expected: [String: String]) async throws {
            do {
                try await pollUntilTrue(timeout: 30, interval: 0.1, "MPRIS metadata \(expected)") {
                    try expected.allSatisfy { key, value in
                        try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", key]).stdout
                            .trimmingCharacters(in: .whitespacesAndNewlines) == value
                    }
                }
            } catch {
                XCTFail("oton's log:\n\(directory.read("oton.log"))")
                throw error
            }
        }
        try await metadata(["title": "Blood Type", "album": "Lab MP3"])
        XCTAssertEqual(try bus.run("/usr/bin/playerctl", ["-p", "oton", "next"]).status, 0)
        try await metadata(["title": "", "artist": "", "album": "Lab Ogg", "xesam:url": ogg])
        try await pollUntilTrue(timeout: 30, interval: 0.2, "the old song's history row is closed") {
            try runProcess("/usr/bin/sqlite3", [history, "SELECT title FROM plays WHERE ended_at IS NOT NULL"]).stdout.contains("Blood Type")
        }
        XCTAssertTrue(oton.isRunning, "the new station plays on")
    }

    /// The status line in a real terminal: `n` drops the old song and its clock starts again.
    func testTheStatusLineDropsTheSongAndRestartsItsClock() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Kino - Blood Type", stationName: "Lab MP3")
        _ = try await server.startSource(mount: "/lab.ogg", format: .ogg, initialTitle: "", stationName: "")
        let directory = try TemporaryDirectory(self)
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Lab MP3", "url": "\(server.url(mount: "/lab.mp3"))"}, {"name": "Lab Ogg", "url": "\(server.url(mount: "/lab.ogg"))"}],
             "plugins": []}
            """)
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let command = """
            env -u DISPLAY -u WAYLAND_DISPLAY -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG=C.UTF-8 XDG_RUNTIME_DIR='\(directory.file("run"))' \
            XDG_DATA_HOME='\(directory.file("data"))' XDG_CACHE_HOME='\(directory.file("cache"))' PULSE_SERVER=unix:/nonexistent \
            '\(TestPaths.oton)' play 'Lab MP3' --config '\(config)' --instance terminal
            """
        let terminal = try TmuxTerminal(self, command: command)
        let status = { (rows: [String]) in rows.last { !$0.isEmpty } ?? "" }
        func clock(_ line: String) -> Int? {
            guard let range = line.range(of: #"\d+:\d\d(?= · vol)"#, options: .regularExpression) else { return nil }
            let parts = line[range].split(separator: ":").compactMap { Int($0) }
            return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
        }
        try terminal.waitForScreen("the song, listened to for 5 s", timeout: 40) {
            status($0).contains("Kino – Blood Type") && (clock(status($0)) ?? 0) >= 5
        }
        try terminal.type("n")
        let rows = try terminal.waitForScreen("Lab Ogg playing", timeout: 40) {
            status($0).contains("Lab Ogg") && status($0).contains("▶ playing")
        }
        XCTAssertFalse(status(rows).contains("Blood Type"), "the old song is gone: \(status(rows))")
        XCTAssertLessThan(try XCTUnwrap(clock(status(rows)), status(rows)), 5, "the clock started again: \(status(rows))")
        try terminal.type("q")
    }

    /// `oton ctl --json status`'s data.
    private func status(_ oton: OtonProcess) throws -> [String: Any] {
        let reply = try oton.ctl(["--json", "status"])
        XCTAssertEqual(reply.status, 0, reply.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(reply.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["data"] as? [String: Any], reply.stdout)
    }
}
