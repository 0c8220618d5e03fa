import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// The History plugin loaded through the ABI, against the real SQLite and a
/// local ListenBrainz / Last.fm that checks what it receives against their docs.
final class HistoryPluginTests: XCTestCase {
    private var service: FakeScrobbleService!
    private var harnesses: [HistoryPluginHarness] = []

    override func setUp() async throws {
        service = try FakeScrobbleService()
    }

    override func tearDown() async throws {
        harnesses.forEach { $0.shutdown() }
        harnesses = []
        service.stop()
        XCTAssertEqual(service.violations, [], "requests that break the services' documentation")
    }

    private func secretFile(_ directory: TemporaryDirectory, _ name: String, _ value: String, mode: Int = 0o600) throws -> String {
        let path = try directory.write(name, value + "\n")
        chmod(path, mode_t(mode))
        return path
    }

    private func listenBrainzHarness(extra: String = "", directory given: TemporaryDirectory? = nil) throws -> HistoryPluginHarness {
        let directory = try given ?? TemporaryDirectory(self)
        let token = try secretFile(directory, "lb.token", FakeScrobbleService.token)
        let harness = try HistoryPluginHarness(
            self,
            config: """
                {"retry_initial_seconds": 0.2, "retry_max_seconds": 1, "jingle_patterns": ["^advert"] \(extra),
                 "listenbrainz": {"url": "\(service.baseURL)", "token_file": "\(token)"}}
                """, directory: directory)
        harnesses.append(harness)
        return harness
    }

    func testRowsAreWrittenAtStartCompletedAtEndAndQualifyingListensReachListenBrainz() throws {
        let harness = try listenBrainzHarness()
        harness.state(.connecting)
        harness.state(.playing)
        harness.track(1, artist: "Artist A", title: "Song One")
        harness.drain()
        // Written when the track starts: a crash now loses only its end time.
        XCTAssertEqual(try harness.sql("SELECT artist, title, ended_at IS NULL FROM plays"), ["Artist A|Song One|1"])
        harness.publishArtwork(path: "/tmp/cover-a.jpg")
        harness.advance(seconds: 45)
        harness.track(2, artist: "Artist B", title: "Song Two")
        harness.advance(seconds: 10)  // too short for a live listen
        harness.track(3, artist: nil, title: "ADVERT break")  // a configured pattern, any case (the station name never arrives: the host decides)
        harness.advance(seconds: 40)
        harness.track(4, artist: "Advert", title: "advert: buy now")  // matches a configured pattern
        harness.advance(seconds: 35)
        harness.track(5, artist: "Artist C", title: "Song Three")
        harness.advance(seconds: 50)
        harness.state(.idle)  // ended by stop, not by a title change: not a live listen
        harness.drain()

        let rows = try harness.sql("SELECT artist, title, seconds_listened, is_jingle, artwork_path, started_at, ended_at FROM plays ORDER BY id")
        XCTAssertEqual(
            rows.map { $0.split(separator: "|", omittingEmptySubsequences: false).prefix(5).joined(separator: "|") },
            [
                "Artist A|Song One|45.0|0|/tmp/cover-a.jpg", "Artist B|Song Two|10.0|0|", "|ADVERT break|40.0|1|",
                "Advert|advert: buy now|35.0|1|", "Artist C|Song Three|50.0|0|",
            ])
        let first = rows[0].split(separator: "|").map(String.init)
        XCTAssertEqual(Int64(first[6])! - Int64(first[5])!, 45_000_000, "started_at and ended_at are wall microseconds")

        // A notice still unsent when a newer track starts is replaced by the newer one.
        XCTAssertTrue(service.wait { self.service.singles.count >= 1 && self.service.playingNow.last?.title == "Song Three" }, "\(service.listens)")
        // The journal says "sent" once the service's answer is back, a moment after the service has it.
        XCTAssertTrue(
            service.wait { (try? harness.sql("SELECT service, status FROM scrobble_journal")) == ["listenbrainz|sent"] },
            "\((try? harness.sql("SELECT service, status FROM scrobble_journal")) ?? [])")
        harness.shutdown()
        XCTAssertEqual(service.singles.map(\.title), ["Song One"])
        XCTAssertTrue(
            Set(service.playingNow.map(\.title)).isSubset(of: ["Song One", "Song Two", "Song Three"]), "never for jingles or adverts: \(service.playingNow)")
        let listen = try XCTUnwrap(service.singles.first)
        XCTAssertEqual(listen.listenedAt, 1_700_000_000)
        XCTAssertEqual(listen.additionalInfo["media_player"], "Oton")
        XCTAssertEqual(listen.additionalInfo["submission_client"], "Oton")
        XCTAssertEqual(listen.additionalInfo["submission_client_version"], "0.1.0")
        XCTAssertEqual(listen.additionalInfo["origin_url"], "http://127.0.0.1:1/live.mp3")
        XCTAssertEqual(listen.additionalInfo["duration_played"], "45")
        XCTAssertEqual(try harness.sql("SELECT service, status FROM scrobble_journal"), ["listenbrainz|sent"])
        XCTAssertFalse(harness.log.all.joined().contains(FakeScrobbleService.token), "the token never reaches the log")
    }

    func testServiceDownThenUpDeliversEveryListenOnceAndHonoursRateLimits() throws {
        let harness = try listenBrainzHarness(extra: #", "min_live_seconds": 5"#)
        service.setMode(.status(503, resetIn: nil))
        harness.state(.playing)
        for index in 1...4 {
            harness.track(UInt64(index), artist: "Artist \(index)", title: "Song \(index)")
            harness.advance(seconds: 6)
        }
        harness.state(.idle)
        harness.drain()
        // Several failed attempts with growing delay, nothing accepted.
        XCTAssertTrue(service.wait(timeout: 10) { self.service.server.requests(path: "/1/submit-listens").count >= 4 })
        XCTAssertEqual(service.singles.count, 0)
        XCTAssertTrue(harness.log.all.contains { $0.contains("HTTP 503") && $0.contains("retrying") }, "\(harness.log.all)")

        // Rate limited once: the next request waits for X-RateLimit-Reset-In.
        service.queue([.status(429, resetIn: 2)])
        service.setMode(.ok)
        XCTAssertTrue(service.wait(timeout: 20) { self.service.singles.count >= 3 }, "\(service.listens)")
        XCTAssertEqual(service.singles.map(\.title).sorted(), ["Song 1", "Song 2", "Song 3"], "every qualifying listen exactly once")
        XCTAssertEqual(try harness.sql("SELECT status, COUNT(*) FROM scrobble_journal GROUP BY status"), ["sent|3"])
        XCTAssertTrue(harness.log.all.contains { $0.contains("reachable again") }, "\(harness.log.all)")
    }

    func testRateLimitResetHeaderDelaysTheNextAttempt() throws {
        let harness = try listenBrainzHarness(extra: #", "min_live_seconds": 5"#)
        service.queue([.status(429, resetIn: 2)])
        harness.state(.playing)
        harness.track(1, artist: "Artist 1", title: "Song 1")
        harness.advance(seconds: 6)
        harness.track(2, artist: "Artist 2", title: "Song 2")
        harness.drain()
        XCTAssertTrue(service.wait(timeout: 15) { self.service.singles.count == 1 })
        let requests = service.server.requests(path: "/1/submit-listens")
        // playing_now (429), then after the reset: playing_now and the listen.
        let gap = requests[1].receivedAt.timeIntervalSince(requests[0].receivedAt)
        XCTAssertGreaterThanOrEqual(gap, 1.8, "waited for X-RateLimit-Reset-In: 2")
        print("[measure] retry after 429 with X-RateLimit-Reset-In 2: \(String(format: "%.2f", gap)) s")
    }

    func testShutdownDoesNotWaitForAHangingService() throws {
        let harness = try listenBrainzHarness(extra: #", "min_live_seconds": 5"#)
        service.setMode(.slow(8))
        harness.state(.playing)
        harness.track(1, artist: "Artist 1", title: "Song 1")
        harness.drain()
        XCTAssertTrue(service.wait { !self.service.server.requests(path: "/1/submit-listens").isEmpty })
        let start = Date()
        harness.shutdown()
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertLessThan(elapsed, 5, "destroy cancels the request under way (it would hang 8 s)")
        print("[measure] History plugin destroy with a request hanging: \(String(format: "%.3f", elapsed)) s")
    }

    func testInvalidTokenKeepsListensAndTellsTheUser() throws {
        let directory = try TemporaryDirectory(self)
        let token = try secretFile(directory, "lb.token", "wrong-token")
        let harness = try HistoryPluginHarness(
            self,
            config: """
                {"min_live_seconds": 5, "listenbrainz": {"url": "\(service.baseURL)", "token_file": "\(token)"}}
                """, directory: directory)
        harnesses.append(harness)
        harness.state(.playing)
        harness.track(1, artist: "Artist 1", title: "Song 1")
        harness.advance(seconds: 6)
        harness.track(2, artist: "Artist 2", title: "Song 2")
        harness.drain()
        XCTAssertTrue(service.wait { harness.log.all.contains { $0.contains("refused the token") } }, "\(harness.log.all)")
        XCTAssertEqual(try harness.sql("SELECT status FROM scrobble_journal"), ["pending"], "kept for after the token is fixed")
        XCTAssertFalse(harness.log.all.joined().contains("wrong-token"))
    }

    func testSecretsInPluginsJsonOrInReadableFilesAreRefused() throws {
        let directory = try TemporaryDirectory(self)
        XCTAssertThrowsError(try HistoryPluginHarness(self, config: #"{"listenbrainz": {"token": "abc"}}"#, directory: directory)) { error in
            XCTAssertTrue("\(error)".contains("secrets are never read from plugins.json"), "\(error)")
        }
        let open = try secretFile(directory, "open.token", FakeScrobbleService.token, mode: 0o644)
        let harness = try HistoryPluginHarness(
            self,
            config: """
                {"listenbrainz": {"url": "\(service.baseURL)", "token_file": "\(open)"}}
                """, directory: directory)
        harnesses.append(harness)
        harness.state(.playing)
        harness.drain()
        XCTAssertTrue(harness.log.all.contains { $0.contains("has mode 644; refusing it") }, "\(harness.log.all)")
    }

    private func lastFMHarness(session: String = FakeScrobbleService.sessionKey) throws -> HistoryPluginHarness {
        let directory = try TemporaryDirectory(self)
        let key = try secretFile(directory, "lastfm.key", FakeScrobbleService.apiKey)
        let secret = try secretFile(directory, "lastfm.secret", FakeScrobbleService.apiSecret)
        let sessionFile = try secretFile(directory, "lastfm.session", session)
        let harness = try HistoryPluginHarness(
            self,
            config: """
                {"min_live_seconds": 5, "retry_initial_seconds": 0.2, "retry_max_seconds": 1,
                 "lastfm": {"url": "\(service.lastFMURL)", "api_key_file": "\(key)", "api_secret_file": "\(secret)", "session_key_file": "\(sessionFile)"}}
                """, directory: directory)
        harnesses.append(harness)
        return harness
    }

    func testLastFMNowPlayingAndBatchedSignedScrobblesThroughTemporaryErrors() throws {
        let harness = try lastFMHarness()
        service.setMode(.lastFMError(11))  // service offline, under HTTP 200
        harness.state(.playing)
        for index in 1...3 {
            harness.track(UInt64(index), artist: "Künstler \(index)", title: "Lied & Song \(index)")
            harness.advance(seconds: 7)
        }
        harness.track(4, artist: "Artist 4", title: "Song 4")
        harness.drain()
        XCTAssertTrue(service.wait { self.service.server.requests(path: "/2.0/").count >= 3 })
        service.queue([.lastFMError(16)])
        service.setMode(.ok)
        XCTAssertTrue(service.wait { self.service.lastFM.filter { $0.method == "track.scrobble" }.count >= 1 })
        let scrobbles = service.lastFM.filter { $0.method == "track.scrobble" }
        let titles = scrobbles.flatMap { call in (0..<50).compactMap { call.fields["track[\($0)]"] } }
        XCTAssertEqual(titles, ["Lied & Song 1", "Lied & Song 2", "Lied & Song 3"], "one batch, each once, in order")
        XCTAssertEqual(scrobbles.first?.fields["artist[0]"], "Künstler 1")
        XCTAssertEqual(scrobbles.first?.fields["timestamp[0]"], "1700000000")
        XCTAssertEqual(scrobbles.first?.fields["sk"], FakeScrobbleService.sessionKey)
        XCTAssertEqual(try harness.sql("SELECT status, COUNT(*) FROM scrobble_journal GROUP BY status"), ["sent|3"])
    }

    func testLastFMInvalidSessionAsksToReauthenticateAndKeepsListens() throws {
        let harness = try lastFMHarness(session: "stale-session")
        harness.state(.playing)
        harness.track(1, artist: "Artist 1", title: "Song 1")
        harness.advance(seconds: 6)
        harness.track(2, artist: "Artist 2", title: "Song 2")
        harness.drain()
        XCTAssertTrue(service.wait { harness.log.all.contains { $0.contains("error 9") && $0.contains("oton lastfm login") } }, "\(harness.log.all)")
        XCTAssertEqual(try harness.sql("SELECT status FROM scrobble_journal"), ["pending"])
    }

    func testHistoryCommandThroughTheABIFiltersAndFormats() throws {
        let harness = try listenBrainzHarness()
        harness.state(.playing)
        harness.track(1, artist: "Artist A", title: "Song One", station: "Alpha")
        harness.advance(seconds: 60)
        harness.track(2, artist: "Artist B", title: "Song Two", station: "Beta")
        harness.advance(seconds: 30)
        harness.state(.idle)
        harness.drain()
        let json = try XCTUnwrap(harness.command("history", ["--format", "json", "--station", "beta"]))
        XCTAssertTrue(json.ok, json.text)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["title"] as? String }, ["Song Two"])
        let stats = try XCTUnwrap(harness.command("history", ["stats", "--format", "json"]))
        XCTAssertTrue(stats.text.contains("\"hours\" : 0.02"), stats.text)  // Alpha: 60 s
        let bad = try XCTUnwrap(harness.command("history", ["--limit", "x"]))
        XCTAssertFalse(bad.ok)
        XCTAssertTrue(bad.text.contains("--limit"), bad.text)
    }

    /// Issue 15.20 and 15.21 against the real SQLite file: search folds case and accents in every script, and
    /// a play heard for less than the scrobble threshold is kept but skipped: hidden without --all, never counted.
    func testSearchFoldsEveryScriptAndShortPlaysAreSkippedNotCounted() throws {
        let harness = try listenBrainzHarness()
        harness.state(.playing)
        harness.track(1, artist: "Кино", title: "Группа крови")
        harness.advance(seconds: 60)
        harness.track(2, artist: "Beyoncé", title: "Halo")
        harness.advance(seconds: 40)
        harness.track(3, artist: "Pink Floyd", title: "Money")
        harness.advance(seconds: 5)  // a restart: not a play
        harness.track(4, artist: "Pink Floyd", title: "Money")
        harness.advance(seconds: 45)
        harness.track(5, artist: "ДДТ", title: "Ёлка")
        harness.advance(seconds: 31)
        harness.state(.idle)
        harness.drain()

        func titles(_ arguments: [String]) throws -> [String] {
            let reply = try XCTUnwrap(harness.command("history", arguments + ["--format", "json"]))
            XCTAssertTrue(reply.ok, reply.text)
            let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply.text.utf8)) as? [[String: Any]])
            return rows.compactMap { $0["title"] as? String }
        }
        for search in ["кино", "КИНО", "Кино", "кин"] {
            XCTAssertEqual(try titles(["--search", search]), ["Группа крови"], search)
        }
        XCTAssertEqual(try titles(["--search", "beyonce"]), ["Halo"])
        XCTAssertEqual(try titles(["--search", "BEYONCÉ"]), ["Halo"])
        XCTAssertEqual(try titles(["--search", "елка"]), ["Ёлка"], "ё folds to е")
        XCTAssertEqual(try titles(["--search", "%"]), [], "LIKE's wildcards are literal")

        XCTAssertEqual(try titles(["--search", "money"]), ["Money"], "the 5-second start is hidden")
        XCTAssertEqual(try titles(["--search", "money", "--all"]), ["Money", "Money"])
        let table = try XCTUnwrap(harness.command("history", ["--all", "--search", "money"]))
        XCTAssertTrue(table.text.contains("Money [skipped]"), table.text)
        let stats = try XCTUnwrap(harness.command("history", ["stats", "--format", "json", "--all"]))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.text.utf8)) as? [String: Any])
        let tracks = try XCTUnwrap(object["top_tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.first { $0["title"] as? String == "Money" }?["plays"] as? Int, 1, "stats count real plays only: \(stats.text)")
        XCTAssertEqual(try harness.sql("SELECT COUNT(*) FROM plays"), ["5"], "the short play's row is kept")
    }

    /// A history.sqlite written before the folded search column existed is upgraded in place, its rows searchable.
    func testAnOlderDatabaseGetsTheFoldedSearchColumnForItsRows() throws {
        let directory = try TemporaryDirectory(self)
        let first = try listenBrainzHarness(directory: directory)
        first.state(.playing)
        first.track(1, artist: "Кино", title: "Звезда по имени Солнце")
        first.advance(seconds: 60)
        first.state(.idle)
        first.drain()
        let database = try XCTUnwrap(try first.sql("PRAGMA database_list").first?.split(separator: "|").last.map(String.init))
        first.shutdown()
        // Back to the first schema: no column, and the migration not yet recorded.
        // `.timeout`: the first plugin's connection may still be closing; wait for its lock, do not fail on it.
        let downgrade = try runProcess(
            "/usr/bin/env",
            [
                "sqlite3", "-cmd", ".timeout 10000", database,
                "ALTER TABLE plays DROP COLUMN search_folded; DELETE FROM grdb_migrations WHERE identifier = 'v2-search-folded';",
            ])
        XCTAssertEqual(downgrade.status, 0, downgrade.stderr)
        let second = try listenBrainzHarness(directory: directory)
        let reply = try XCTUnwrap(second.command("history", ["--search", "кино", "--format", "csv"]))
        XCTAssertTrue(reply.text.contains("Звезда по имени Солнце"), reply.text)
    }

    /// Issue 15.21 and 24: "Unknown - Unknown" is not a track. The host decides that (TrackSequenceTests: it never
    /// reaches a plugin as a title), so History judges no title itself: "Unknown - Time" is a play. Rows an older
    /// oton wrote for placeholder titles are marked skipped on upgrade: hidden without --all, not in stats.
    func testATitleWithAnUnknownArtistIsAPlayAndOlderPlaceholderRowsAreMarkedOnUpgrade() throws {
        let directory = try TemporaryDirectory(self)
        let harness = try listenBrainzHarness(directory: directory)
        harness.state(.playing)
        harness.track(1, artist: "Pink Floyd", title: "Money")
        harness.advance(seconds: 60)
        harness.track(2, artist: "Unknown", title: "Time")  // a real title with an unknown artist is a play
        harness.advance(seconds: 40)
        harness.track(3, artist: "Artist E", title: "Song Five")
        harness.advance(seconds: 45)
        harness.state(.stopped)
        harness.drain()

        func titles(_ harness: HistoryPluginHarness, _ arguments: [String]) throws -> [String] {
            let reply = try XCTUnwrap(harness.command("history", arguments + ["--format", "json"]))
            XCTAssertTrue(reply.ok, reply.text)
            let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply.text.utf8)) as? [[String: Any]])
            return rows.map { "\($0["title"] as? String ?? "")\($0["skipped"] as? Bool == true ? " (skipped)" : "")" }
        }
        XCTAssertEqual(try titles(harness, []), ["Song Five", "Time", "Money"])
        XCTAssertTrue(service.wait { Set(self.service.singles.map(\.title)) == ["Money", "Time"] }, "\(service.listens)")
        harness.shutdown()

        // The same file as an oton before the column left it, with the placeholder rows that oton kept.
        let database = harness.databasePath
        // `.timeout`: the first plugin's connection may still be closing; wait for its lock, do not fail on it.
        let downgrade = try runProcess(
            "/usr/bin/env",
            [
                "sqlite3", "-cmd", ".timeout 10000", database,
                """
                ALTER TABLE plays DROP COLUMN is_placeholder; DELETE FROM grdb_migrations WHERE identifier = 'v3-placeholder';
                INSERT INTO plays (station, artist, title, started_at, ended_at, seconds_listened)
                    VALUES ('Test FM', 'Unknown', 'Unknown', 1000000, 2000000, 120), ('Test FM', 'UNKNOWN', 'unknown', 3000000, 4000000, 90);
                """,
            ])
        XCTAssertEqual(downgrade.status, 0, downgrade.stderr)
        let upgraded = try listenBrainzHarness(directory: directory)
        XCTAssertEqual(try upgraded.sql("SELECT COUNT(*) FROM plays"), ["5"], "no row lost in the upgrade")
        XCTAssertEqual(try titles(upgraded, ["--all"]), ["Song Five", "Time", "Money", "unknown (skipped)", "Unknown (skipped)"])
        XCTAssertEqual(try titles(upgraded, []), ["Song Five", "Time", "Money"])
        let stats = try XCTUnwrap(upgraded.command("history", ["stats", "--format", "json"]))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.text.utf8)) as? [String: Any])
        let tracks = try XCTUnwrap(object["top_tracks"] as? [[String: Any]])
        XCTAssertEqual(Set(tracks.compactMap { $0["title"] as? String }), ["Money", "Time", "Song Five"], stats.text)
    }

    /// Issue 24: the history lives in the plugin's own data folder; one an older oton kept two folders up
    /// ($XDG_DATA_HOME/oton/history.sqlite) moves there at the first start, rows and all.
    func testAHistoryInTheOlderPlaceMovesIntoThePluginsFolder() throws {
        let directory = try TemporaryDirectory(self)
        let first = try listenBrainzHarness(directory: directory)
        first.state(.playing)
        first.track(1, artist: "Artist A", title: "Song One")
        first.drain()
        first.shutdown()
        let current = first.databasePath
        XCTAssertTrue(current.hasSuffix("/oton/plugins/org.oton.history/history.sqlite"), current)
        let older = first.dataHome + "/oton/history.sqlite"
        XCTAssertEqual(rename(current, older), 0, "made the older layout")
        for suffix in ["-wal", "-shm"] { _ = rename(current + suffix, older + suffix) }

        let second = try listenBrainzHarness(directory: directory)
        XCTAssertTrue(FileManager.default.fileExists(atPath: current), "moved into the plugin's folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: older), "nothing left behind")
        XCTAssertTrue(second.log.all.contains { $0.contains("history moved from \(older)") }, "\(second.log.all)")
        XCTAssertEqual(try second.sql("SELECT artist, title FROM plays"), ["Artist A|Song One"], "no row lost")
    }

    func testLastFMLoginCommandStoresTheSessionKeyWithMode0600() throws {
        let directory = try TemporaryDirectory(self)
        let sessionFile = directory.file("session/lastfm.session")
        let config = try directory.write(
            "plugins.json",
            """
            {"plugins": [{"id": "org.oton.history", "path": "\(TestPaths.pluginLibrary("OtonHistory"))",
              "config": {"lastfm": {"url": "\(service.lastFMURL)", "auth_url": "http://127.0.0.1:1/api/auth/",
                "api_key_env": "TEST_LASTFM_KEY", "api_secret_env": "TEST_LASTFM_SECRET", "session_key_file": "\(sessionFile)"}}}]}
            """)
        service.authorizeAfter(2)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["TEST_LASTFM_KEY"] = FakeScrobbleService.apiKey
        environment["TEST_LASTFM_SECRET"] = FakeScrobbleService.apiSecret
        let result = try runProcess(
            TestPaths.oton, ["lastfm", "login", "--config", config, "--interval", "0.1", "--wait", "20"],
            environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("http://127.0.0.1:1/api/auth/?api_key=\(FakeScrobbleService.apiKey)&token=tok3n0123456789"), result.stdout)
        XCTAssertTrue(result.stdout.contains("as oton-user"), result.stdout)
        XCTAssertEqual(try String(contentsOfFile: sessionFile, encoding: .utf8), FakeScrobbleService.sessionKey + "\n")
        let mode = try FileManager.default.attributesOfItem(atPath: sessionFile)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertFalse(result.stdout.contains(FakeScrobbleService.sessionKey) || result.stderr.contains(FakeScrobbleService.sessionKey))
    }
}
