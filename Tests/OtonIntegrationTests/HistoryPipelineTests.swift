import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// The real `oton play` binary with the History plugin, against a real Icecast2
/// server and the local ListenBrainz; then `oton history` on databases the tests fill.
final class HistoryPipelineTests: XCTestCase {
    private var server: IcecastServer?
    private var service: FakeScrobbleService!
    private var processes: [Process] = []

    override func setUp() async throws {
        service = try FakeScrobbleService()
    }

    override func tearDown() async throws {
        for process in processes where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        server?.stop()
        service.stop()
        XCTAssertEqual(service.violations, [])
    }

    private struct Setup {
        var directory: TemporaryDirectory
        var config: String
        var environment: [String: String]
        var database: String
    }

    private func setup(minimumLiveSeconds: Double = 2) throws -> Setup {
        let directory = try TemporaryDirectory(self)
        let token = try directory.write("lb.token", FakeScrobbleService.token + "\n")
        chmod(token, 0o600)
        let config = try directory.write(
            "plugins.json",
            """
            {"plugins": [{"id": "org.oton.history", "path": "\(TestPaths.pluginLibrary("OtonHistory"))",
              "config": {"min_live_seconds": \(minimumLiveSeconds), "retry_initial_seconds": 0.2, "retry_max_seconds": 1,
                         "listenbrainz": {"url": "\(service.baseURL)", "token_env": "TEST_LB_TOKEN_UNSET", "token_file": "\(token)"}}}]}
            """)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        return Setup(
            directory: directory, config: config, environment: environment,
            database: directory.file("data") + "/oton/plugins/org.oton.history/history.sqlite")
    }

    private func startOton(_ setup: Setup, url: String, name: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["play", url, "--headless", "--config", setup.config, "--log-level", "debug"]
        process.environment = setup.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: try setup.directory.write("\(name).out", "")) ?? FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: try setup.directory.write("\(name).err", "")) ?? FileHandle.nullDevice
        try process.run()
        processes.append(process)
        return process
    }

    private func sql(_ database: String, _ query: String) -> [String] {
        guard let result = try? runProcess("/usr/bin/sqlite3", ["-cmd", ".timeout 5000", database, query]), result.status == 0 else { return [] }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Plays the mount for three titles, each heard `seconds` (the first two end by a title change).
    private func playThreeTitles(mount: String, seconds: Double) async throws {
        let server = try XCTUnwrap(self.server)
        for (index, title) in ["Artist B - Song Two", "Artist C - Song Three"].enumerated() {
            let previous = index == 0 ? "Song One" : "Song Two"
            XCTAssertTrue(service.wait { self.service.playingNow.contains { $0.title == previous } }, "playing_now for \(previous): \(service.listens)")
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))  // listening time is what is measured
            try await server.setTitle(mount: mount, title: title)
        }
        XCTAssertTrue(service.wait { self.service.playingNow.contains { $0.title == "Song Three" } }, "\(service.listens)")
    }

    func testThreeTitlesFromIcecastBecomeThreeRowsAndQualifyingListens() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/history.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "History FM")
        let setup = try setup()
        let started = Date()
        let oton = try startOton(setup, url: server.url(mount: "/history.mp3").absoluteString, name: "oton")
        try await playThreeTitles(mount: "/history.mp3", seconds: 2.5)
        // oton history reads while oton play writes (WAL).
        let reading = try runProcess(TestPaths.oton, ["history", "--format", "json", "--config", setup.config], environment: setup.environment)
        XCTAssertEqual(reading.status, 0, reading.stderr)
        let live = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reading.stdout.utf8)) as? [[String: Any]], reading.stdout)
        XCTAssertEqual(live.map { $0["title"] as? String }, ["Song Three", "Song Two", "Song One"])
        XCTAssertTrue(live.first?["ended_at"] is NSNull, "the track playing has no end yet")
        XCTAssertTrue(oton.isRunning)
        kill(oton.processIdentifier, SIGTERM)
        oton.waitUntilExit()
        XCTAssertEqual(oton.terminationStatus, 0, setup.directory.read("oton.err"))

        let rows = sql(setup.database, "SELECT artist, title, station, started_at, ended_at, seconds_listened, is_jingle FROM plays ORDER BY id")
        XCTAssertEqual(
            rows.map { $0.split(separator: "|").prefix(3).joined(separator: "|") },
            ["Artist A|Song One|History FM", "Artist B|Song Two|History FM", "Artist C|Song Three|History FM"])
        let window = (Int64(started.timeIntervalSince1970 * 1e6), Int64(Date().timeIntervalSince1970 * 1e6))
        for row in rows {
            let cells = row.split(separator: "|").map(String.init)
            guard cells.count >= 6, let begin = Int64(cells[3]), let end = Int64(cells[4]), let heard = Double(cells[5]) else {
                XCTFail("incomplete row \(row)")
                continue
            }
            XCTAssertTrue(begin >= window.0 && end <= window.1 && begin < end, "times inside the test: \(row)")
            XCTAssertEqual(Double(end - begin) / 1e6, heard, accuracy: 0.5, "heard time matches wall time without pauses: \(row)")
        }
        XCTAssertGreaterThanOrEqual(rows.first.flatMap { Double($0.split(separator: "|").dropFirst(5).first ?? "") } ?? 0, 2.4)

        XCTAssertTrue(service.wait { self.service.singles.count >= 2 })
        XCTAssertEqual(service.singles.map(\.title), ["Song One", "Song Two"], "the third ended by stop, not by a title change")
        XCTAssertEqual(service.singles.first?.additionalInfo["origin_url"], server.url(mount: "/history.mp3").absoluteString)
        XCTAssertEqual(Set(service.playingNow.map(\.title)), ["Song One", "Song Two", "Song Three"])
    }

    func testServiceDownThenKill9ThenRestartSendsEveryQueuedListenOnce() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/kill.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "History FM")
        let setup = try setup()
        service.setMode(.status(503, resetIn: nil))
        let url = server.url(mount: "/kill.mp3").absoluteString
        let first = try startOton(setup, url: url, name: "first")
        // playing_now is refused while the service is down, so wait for the rows instead.
        for (index, title) in ["Artist B - Song Two", "Artist C - Song Three"].enumerated() {
            XCTAssertTrue(service.wait { self.sql(setup.database, "SELECT COUNT(*) FROM plays") == ["\(index + 1)"] })
            try await Task.sleep(nanoseconds: 2_500_000_000)
            try await server.setTitle(mount: "/kill.mp3", title: title)
        }
        XCTAssertTrue(service.wait { self.sql(setup.database, "SELECT COUNT(*) FROM scrobble_journal WHERE status = 'pending'") == ["2"] })
        XCTAssertTrue(service.wait { self.service.server.requests(path: "/1/submit-listens").count >= 3 }, "attempts while down")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationReason, .uncaughtSignal)
        XCTAssertEqual(service.singles.count, 0)
        // The crash lost only the end time of the track playing then.
        XCTAssertEqual(sql(setup.database, "SELECT title, ended_at IS NULL FROM plays ORDER BY id"), ["Song One|0", "Song Two|0", "Song Three|1"])

        service.setMode(.ok)
        let second = try startOton(setup, url: url, name: "second")
        XCTAssertTrue(service.wait { self.service.singles.count >= 2 }, setup.directory.read("second.err"))
        XCTAssertTrue(service.wait { self.sql(setup.database, "SELECT status, COUNT(*) FROM scrobble_journal GROUP BY status") == ["sent|2"] })
        kill(second.processIdentifier, SIGTERM)
        second.waitUntilExit()
        XCTAssertEqual(service.singles.map(\.title), ["Song One", "Song Two"], "each queued listen once, in order")
        XCTAssertEqual(service.singles.map(\.listenedAt).count, Set(service.singles.map(\.listenedAt)).count)
    }

    func testHistoryCommandFiltersAndFormatsADatabaseTheTestFills() throws {
        let directory = try TemporaryDirectory(self)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["TZ"] = "UTC"
        let config = try directory.write("plugins.json", #"{"plugins": []}"#)
        // The first run creates the database through the plugin's migrations.
        let empty = try runProcess(TestPaths.oton, ["history", "--config", config], environment: environment)
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertEqual(empty.stdout, "No tracks in the history match.\n")
        let database = directory.file("data") + "/oton/plugins/org.oton.history/history.sqlite"
        let day: Int64 = 1_714_521_600_000_000  // 2024-05-01T00:00:00Z
        var inserts = ""
        let rows: [(String, String, String, Int64, Double, Int)] = [
            ("Alpha", "Artist A", "Song One", day + 3_600_000_000, 200, 0),
            ("Alpha", "Artist A", "Song Two", day + 7_200_000_000, 180, 0),
            ("Beta", "Artist B", "Song, \"Quoted\"", day + 86_400_000_000, 240, 0),
            ("Beta", "", "Beta", day + 90_000_000_000, 30, 1),
            ("Alpha", "Artist A", "Song One", day + 172_800_000_000, 3600, 0),
        ]
        for (station, artist, title, started, seconds, jingle) in rows {
            let artistSQL = artist.isEmpty ? "NULL" : "'\(artist)'"
            inserts +=
                "INSERT INTO plays (station, artist, title, raw_title, started_at, ended_at, seconds_listened, is_jingle) VALUES ('\(station)', \(artistSQL), '\(title.replacingOccurrences(of: "'", with: "''"))', '\(title)', \(started), \(started + Int64(seconds * 1e6)), \(seconds), \(jingle));\n"
        }
        let filled = try runProcess("/usr/bin/sqlite3", [database, inserts])
        XCTAssertEqual(filled.status, 0, filled.stderr)

        func history(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(TestPaths.oton, ["history"] + arguments + ["--config", config], environment: environment)
        }
        let table = try history(["--limit", "2"])
        XCTAssertEqual(table.status, 0, table.stderr)
        let lines = table.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, table.stdout)
        XCTAssertTrue(lines[0].hasPrefix("STARTED"))
        XCTAssertTrue(lines[1].contains("2024-05-03 00:00") && lines[1].contains("1:00:00") && lines[1].contains("Song One"), table.stdout)
        XCTAssertTrue(lines[2].contains("Beta [jingle]"), table.stdout)

        let json = try history(["--station", "ALPHA", "--since", "2024-05-01 01:30", "--format", "json"])
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], json.stdout + json.stderr)
        XCTAssertEqual(objects.map { $0["title"] as? String }, ["Song One", "Song Two"])
        XCTAssertEqual(objects.last?["started_at"] as? String, "2024-05-01T02:00:00Z")

        let csv = try history(["--search", "quoted", "--format", "csv"])
        XCTAssertEqual(csv.stdout.split(separator: "\n").count, 2, csv.stdout)
        XCTAssertTrue(csv.stdout.contains(#""Song, ""Quoted""""#), csv.stdout)

        let stats = try history(["stats", "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], stats.stderr)
        let artists = try XCTUnwrap(object["top_artists"] as? [[String: Any]])
        XCTAssertEqual(artists.first?["artist"] as? String, "Artist A")
        XCTAssertEqual(artists.first?["plays"] as? Int, 3)
        let tracks = try XCTUnwrap(object["top_tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.first?["title"] as? String, "Song One")
        XCTAssertEqual(tracks.first?["plays"] as? Int, 2)
        let stations = try XCTUnwrap(object["stations"] as? [[String: Any]])
        XCTAssertEqual(stations.first?["station"] as? String, "Alpha")
        XCTAssertEqual(stations.first?["hours"] as? Double, 1.11)  // 3980 s

        let textStats = try history(["stats"])
        XCTAssertTrue(textStats.stdout.contains("Hours listened per station"), textStats.stdout)
        let bad = try history(["--since", "someday"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("is not a date"), bad.stderr)
    }
}
