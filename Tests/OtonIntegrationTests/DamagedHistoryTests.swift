import Foundation
import OtonTestSupport
import XCTest

/// A damaged history.sqlite is moved aside byte for byte, a new one starts,
/// and the log says in words what was wrong and where the old file is; for
/// the player (the plugin through the ABI) and for `oton history` alike.
final class DamagedHistoryTests: XCTestCase {
    private var harnesses: [HistoryPluginHarness] = []

    override func tearDown() {
        harnesses.forEach { $0.shutdown() }
        harnesses = []
    }

    private func databasePath(_ directory: TemporaryDirectory) throws -> String {
        let folder = directory.file("data/oton/plugins/org.oton.history")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/history.sqlite"
    }

    private func start(_ directory: TemporaryDirectory) throws -> HistoryPluginHarness {
        let harness = try HistoryPluginHarness(self, config: "{}", directory: directory)
        harnesses.append(harness)
        return harness
    }

    /// The one file beside the database named `history.sqlite.damaged-YYYYMMDD-HHMMSS`.
    private func damagedCopy(beside path: String) throws -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.range(of: #"^history\.sqlite\.damaged-\d{8}-\d{6}$"#, options: .regularExpression) != nil
        }
        XCTAssertEqual(names.count, 1, "\((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])")
        return folder + "/" + (names.first ?? "missing")
    }

    /// The damaged file is kept unchanged under its new name, the log names both paths, and the new database records plays.
    private func assertRecovered(
        _ harness: HistoryPluginHarness, original: Data, reason: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let path = harness.databasePath
        let aside = try damagedCopy(beside: path)
        XCTAssertEqual(FileManager.default.contents(atPath: aside), original, "kept byte for byte", file: file, line: line)
        let notice = "the listening history at \(path) was damaged (\(reason)); it was moved to \(aside) and a new one started"
        XCTAssertTrue(harness.log.all.contains { $0.contains(notice) }, "\(harness.log.all)", file: file, line: line)
        harness.state(.playing)
        harness.track(1, artist: "Artist A", title: "Song One")
        harness.drain()
        XCTAssertEqual(try harness.sql("SELECT artist, title FROM plays"), ["Artist A|Song One"], file: file, line: line)
    }

    func testRandomBytesAreMovedAsideAndANewHistoryStarts() throws {
        let directory = try TemporaryDirectory(self)
        let path = try databasePath(directory)
        var generator = SystemRandomNumberGenerator()
        let junk = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: junk))
        let harness = try start(directory)
        try assertRecovered(harness, original: junk, reason: "it is not an SQLite database")
    }

    func testATruncatedHistoryIsMovedAside() throws {
        let directory = try TemporaryDirectory(self)
        let path = try databasePath(directory)
        // A real history with enough rows to span many pages, closed cleanly (no -wal left).
        let first = try start(directory)
        first.state(.playing)
        for index in 1...400 {
            first.track(UInt64(index), artist: "Artist \(index) " + String(repeating: "x", count: 200), title: "Song \(index)")
            first.advance(seconds: 30)
        }
        first.drain()
        first.shutdown()
        harnesses = []
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
        let whole = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertGreaterThan(whole.count, 64 << 10)
        let cut = whole.prefix(whole.count / 2)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: cut))
        let harness = try start(directory)
        try assertRecovered(harness, original: cut, reason: "parts of it are unreadable or inconsistent (cut short or overwritten)")
    }

    func testAConflictingPlaysTableIsMovedAsideNotMigrated() throws {
        let directory = try TemporaryDirectory(self)
        let path = try databasePath(directory)
        let made = try runProcess("/usr/bin/sqlite3", [path, "CREATE TABLE plays (song TEXT); INSERT INTO plays VALUES ('kept');"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let original = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let harness = try start(directory)
        try assertRecovered(
            harness, original: original,
            reason: "its tables are not the ones Oton keeps (made by another program, or by a different Oton)")
        let aside = try damagedCopy(beside: path)
        XCTAssertEqual(try runProcess("/usr/bin/sqlite3", [aside, "SELECT song FROM plays"]).stdout, "kept\n", "still readable by others")
    }

    func testOtonHistorySaysTheSameAndAnswersFromTheNewHistory() throws {
        let directory = try TemporaryDirectory(self)
        let path = try databasePath(directory)
        let junk = Data("this is not a database, it is a shopping list\n".utf8) + Data(repeating: 0xFF, count: 4000)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: junk))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.file("data")
        let config = try directory.write("plugins.json", #"{"plugins": []}"#)
        let result = try runProcess(TestPaths.oton, ["history", "--config", config], environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "No tracks in the history match.\n")
        let aside = try damagedCopy(beside: path)
        XCTAssertTrue(
            result.stderr.contains(
                "the listening history at \(path) was damaged (it is not an SQLite database); it was moved to \(aside) and a new one started"),
            result.stderr)
        XCTAssertFalse(result.stderr.contains("fix the plugin"), result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: aside), junk)
        // The next run finds a healthy history and says nothing.
        let again = try runProcess(TestPaths.oton, ["history", "--config", config], environment: environment)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(again.stderr.contains("damaged"), again.stderr)
    }
}
