import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 52: the History plugin (through the ABI, real SQLite, the local ListenBrainz) keeps where
/// each title came from, says it in `history`, and never scrobbles a recognised title; a history an
/// older oton wrote gets the column with its rows unknown.
final class HistoryTitleSourceTests: XCTestCase {
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

    private func harness(_ directory: TemporaryDirectory) throws -> HistoryPluginHarness {
        let token = try directory.write("lb.token", FakeScrobbleService.token + "\n")
        chmod(token, 0o600)
        let harness = try HistoryPluginHarness(
            self,
            config: """
                {"retry_initial_seconds": 0.2, "retry_max_seconds": 1,
                 "listenbrainz": {"url": "\(service.baseURL)", "token_file": "\(token)"}}
                """, directory: directory)
        harnesses.append(harness)
        return harness
    }

    func testRowsKeepTheSourceAndARecognisedTitleIsNeverScrobbled() throws {
        let directory = try TemporaryDirectory(self)
        let history = try harness(directory)
        history.state(.playing)
        history.track(1, artist: "Artist A", title: "Website Song", titleSource: .stationAPI)
        history.advance(seconds: 60)
        history.track(2, artist: "Artist B", title: "Guessed Song", titleSource: .recognised)
        history.advance(seconds: 60)
        history.track(3, artist: "Artist C", title: "Provider Song", titleSource: .provider("laut.fm"))
        history.advance(seconds: 60)
        history.track(4, artist: "Artist D", title: "Stream Song", titleSource: .stream)
        history.advance(seconds: 60)
        history.track(5, artist: "Artist E", title: "Last Song", titleSource: .stream)  // a live track counts once a title ends it
        history.advance(seconds: 40)
        history.state(.stopped)
        history.drain()

        XCTAssertEqual(
            try history.sql("SELECT title || '|' || title_source FROM plays ORDER BY id"),
            [
                "Website Song|station-api", "Guessed Song|recognised", "Provider Song|provider:laut.fm", "Stream Song|stream",
                "Last Song|stream",
            ])
        // The stream's song is the last one sent: once it arrived, the recognised one had its turn long before.
        XCTAssertTrue(service.wait { self.service.singles.contains { $0.title == "Stream Song" } }, "\(service.listens)")
        XCTAssertEqual(Set(service.singles.map(\.title)), ["Website Song", "Provider Song", "Stream Song"], "a guess is never scrobbled")
        XCTAssertFalse(service.playingNow.contains { $0.title == "Guessed Song" }, "nor announced as playing")

        let json = try XCTUnwrap(history.command("history", ["--format", "json"]))
        XCTAssertTrue(json.ok, json.text)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.compactMap { $0["title_source"] as? String }, ["stream", "stream", "provider:laut.fm", "recognised", "station-api"])
        let table = try XCTUnwrap(history.command("history", []))
        XCTAssertTrue(table.text.contains("Guessed Song [recognised]"), table.text)
        XCTAssertTrue(table.text.contains("Website Song [station's website]"), table.text)
    }

    func testAnOlderHistoryGetsTheColumnWithItsRowsUnknown() throws {
        let directory = try TemporaryDirectory(self)
        let first = try harness(directory)
        first.state(.playing)
        first.track(1, artist: "Artist A", title: "Song A", titleSource: .stationAPI)
        first.advance(seconds: 60)
        first.state(.stopped)
        first.drain()
        let database = first.databasePath
        first.shutdown()
        // The file as an oton before title sources left it: no column, the migration not recorded.
        let downgrade = try runProcess(
            "/usr/bin/env",
            [
                "sqlite3", "-cmd", ".timeout 10000", database,
                "ALTER TABLE plays DROP COLUMN title_source; DELETE FROM grdb_migrations WHERE identifier = 'v4-title-source';",
            ])
        XCTAssertEqual(downgrade.status, 0, downgrade.stderr)
        let upgraded = try harness(directory)
        XCTAssertEqual(try upgraded.sql("SELECT title || '|' || COALESCE(title_source, 'NULL') FROM plays"), ["Song A|NULL"])
        upgraded.state(.playing)
        upgraded.track(2, artist: "Artist B", title: "Song B", titleSource: .stationAPI)
        upgraded.advance(seconds: 60)
        upgraded.state(.stopped)
        upgraded.drain()
        XCTAssertEqual(
            try upgraded.sql("SELECT title || '|' || COALESCE(title_source, 'NULL') FROM plays ORDER BY id"), ["Song A|NULL", "Song B|station-api"])
    }
}
