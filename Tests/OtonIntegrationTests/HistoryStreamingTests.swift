import Foundation
import OtonTestSupport
import XCTest

/// `oton history` on a large history streams its rows (bounded memory, no 30 s cut-off), and a
/// history another program keeps locked at start is waited for (up to 30 s), then named.
final class HistoryStreamingTests: XCTestCase {
    /// A history.sqlite with Oton's tables, made by `oton history` itself, under `directory`/data.
    private func emptyHistory(_ directory: TemporaryDirectory) throws -> (path: String, config: String, environment: [String: String]) {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.file("data")
        let config = try directory.write("plugins.json", #"{"plugins": []}"#)
        let first = try runProcess(TestPaths.oton, ["history", "--config", config], environment: environment)
        XCTAssertEqual(first.status, 0, first.stderr)
        return (directory.file("data/oton/plugins/org.oton.history/history.sqlite"), config, environment)
    }

    /// Issue 39 §4: the first half hour of switching stations leaves only short plays, and
    /// `oton history` said only "No tracks in the history match."
    func testAnEmptyListingSaysHowManyShortPlaysItHidesAndHowToSeeThem() throws {
        let directory = try TemporaryDirectory(self)
        let history = try emptyHistory(directory)
        let fill = try runProcess(
            "/usr/bin/sqlite3",
            [
                history.path,
                """
                INSERT INTO plays (station, artist, title, raw_title, stream_url, started_at, ended_at, seconds_listened, is_jingle, search_folded, is_placeholder)
                VALUES ('A', 'Artist', 'Short One', 'Artist - Short One', 'http://127.0.0.1/s', 1700000000000000, 1700000012000000, 12.0, 0, 'artist short one', 0),
                       ('B', 'Artist', 'Short Two', 'Artist - Short Two', 'http://127.0.0.1/s', 1700000020000000, 1700000029000000, 9.0, 0, 'artist short two', 0);
                """,
            ])
        XCTAssertEqual(fill.status, 0, fill.stderr)
        let listed = try runProcess(TestPaths.oton, ["history", "--config", history.config], environment: history.environment)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("No tracks in the history match."), listed.stdout)
        XCTAssertTrue(listed.stdout.contains("2 plays heard for less than 30 s (or without a title) are not listed; --all shows them."), listed.stdout)
        let all = try runProcess(TestPaths.oton, ["history", "--all", "--config", history.config], environment: history.environment)
        XCTAssertTrue(all.stdout.contains("Short One") && all.stdout.contains("Short Two"), all.stdout)
        XCTAssertFalse(all.stdout.contains("not listed"), all.stdout)
        // A filter that matches nothing hides nothing: no hint.
        let none = try runProcess(TestPaths.oton, ["history", "--station", "Z", "--config", history.config], environment: history.environment)
        XCTAssertFalse(none.stdout.contains("not listed"), none.stdout)
    }

    func testOneHundredThousandRowsOfALargeHistoryStreamInBoundedMemory() throws {
        let directory = try TemporaryDirectory(self)
        let history = try emptyHistory(directory)
        // 150,000 plays with 400-character titles: a 150 MB history, made by SQLite in a few seconds.
        let fill = try runProcess(
            "/usr/bin/sqlite3",
            [
                history.path,
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150000)
                INSERT INTO plays (station, artist, title, raw_title, stream_url, started_at, ended_at, seconds_listened, is_jingle, search_folded, is_placeholder)
                SELECT 'Station ' || (i % 7), 'Artist ' || i, 'Title ' || i || ' ' || hex(randomblob(200)), 'Artist ' || i || ' - ' || hex(randomblob(200)),
                       'http://127.0.0.1/s', 1700000000000000 + i * 180000000, 1700000000000000 + i * 180000000 + 170000000, 170.0, 0, 'artist ' || i, 0 FROM n;
                """,
            ])
        XCTAssertEqual(fill.status, 0, fill.stderr)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: history.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 100 << 20)

        let output = directory.file("history.json")
        XCTAssertTrue(FileManager.default.createFile(atPath: output, contents: nil))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["history", "--limit", "100000", "--format", "json", "--config", history.config]
        process.environment = history.environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let errors = Pipe()
        process.standardError = errors
        let started = Date()
        try process.run()
        // The peak resident size as the kernel keeps it (VmHWM), read until the process ends.
        var peakKiB = 0
        while process.isRunning {
            peakKiB = max(peakKiB, Self.peakResidentKiB(process.processIdentifier) ?? 0)
            usleep(20_000)
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertEqual(stderr, "")
        print("[measure] history --limit 100000 --format json on \(size >> 20) MB: \(String(format: "%.1f", seconds)) s, peak RSS \(peakKiB / 1024) MB")
        XCTAssertGreaterThan(peakKiB, 0, "read /proc/PID/status while it ran")
        XCTAssertLessThan(peakKiB, 100 << 10, "peak RSS \(peakKiB) KiB")
        XCTAssertLessThan(seconds, 180, "a wide margin for a debug build on a loaded machine (14 s idle); it used to stop at 30 s")

        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: output))) as? [[String: Any]])
        XCTAssertEqual(rows.count, 100_000)
        XCTAssertEqual(rows.first?["id"] as? Int, 150_000, "newest first")
        XCTAssertEqual(rows.last?["id"] as? Int, 50_001)
    }

    func testAHistoryLockedAtStartIsWaitedForAndReadOnceReleased() throws {
        let directory = try TemporaryDirectory(self)
        let history = try emptyHistory(directory)
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/sqlite3", [history.path, "INSERT INTO plays (artist, title, started_at) VALUES ('Artist', 'Kept Song', 1700000000000000);"]
            ).status, 0)
        let holder = try LockHolder(history.path, self)
        // Released only once oton said it found the lock: its first attempt has failed by then.
        let oton = try OutputProcess(TestPaths.oton, ["history", "--config", history.config], environment: history.environment, self)
        XCTAssertTrue(oton.waitForStderr(containing: "is locked by another program", timeout: 60), oton.stderr)
        XCTAssertTrue(oton.stderr.contains("trying again for up to 30 s"), oton.stderr)
        holder.release()
        XCTAssertEqual(oton.waitForExit(timeout: 60), 0, oton.stderr)
        XCTAssertTrue(oton.waitForStdout(containing: "Kept Song", timeout: 10), oton.stdout + oton.stderr)
    }

    func testAHistoryLockedForLongerThan30SecondsIsNamedWithWhatToDo() throws {
        let directory = try TemporaryDirectory(self)
        let history = try emptyHistory(directory)
        let holder = try LockHolder(history.path, self)
        let started = Date()
        let result = try runProcess(TestPaths.oton, ["history", "--config", history.config], environment: history.environment)
        let seconds = Date().timeIntervalSince(started)
        holder.release()
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(
            result.stderr.contains(
                "oton: the listening history at \(history.path) stayed locked by another program for 30 s; close what holds it (sqlite3, a backup or sync tool, another oton) and try again"
            ), result.stderr)
        XCTAssertGreaterThan(seconds, 30, "it waited the 30 s")
        XCTAssertLessThan(seconds, 120)
    }

    private static func peakResidentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
}

/// A python3 child holding an exclusive SQLite lock on a database (no reader or writer gets in)
/// until `release()` or the end of the test.
private final class LockHolder {
    private let process = Process()
    private let input = Pipe()

    init(_ path: String, _ testCase: XCTestCase) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("BEGIN EXCLUSIVE")
            db.execute("UPDATE plays SET is_jingle = is_jingle")
            print("locked", flush=True)
            sys.stdin.readline()
            db.execute("COMMIT")
            db.close()
            """, path,
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        XCTAssertEqual(String(decoding: line, as: UTF8.self), "locked\n", "the lock holder holds the lock")
    }

    func release() {
        input.fileHandleForWriting.write(Data("\n".utf8))
        process.waitUntilExit()
    }
}

/// A process whose stdout and stderr are collected as they come.
private final class OutputProcess: @unchecked Sendable {
    private let process = Process()
    /// Guards `out` and `err`.
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    init(_ executable: String, _ arguments: [String], environment: [String: String], _ testCase: XCTestCase) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        stdoutPipe.fileHandleForReading.readabilityHandler = { [weak self] in self?.append($0.availableData, error: false) }
        stderrPipe.fileHandleForReading.readabilityHandler = { [weak self] in self?.append($0.availableData, error: true) }
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
    }

    private func append(_ data: Data, error: Bool) {
        lock.lock(); if error { err.append(data) } else { out.append(data) }; lock.unlock()
    }

    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }

    func waitForStderr(containing text: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        return stderr.contains(text)
    }

    /// After the exit too: the pipe's last bytes may come a little later.
    func waitForStdout(containing text: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stdout.contains(text) { return true }
            usleep(50_000)
        }
        return stdout.contains(text)
    }

    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}
