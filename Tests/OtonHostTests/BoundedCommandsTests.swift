import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `--on-alert`'s commands (``BoundedCommands``) with real processes: the timeout and oton's end
/// reach what a command started, and alerts beyond the running limit wait instead of being lost.
final class BoundedCommandsTests: XCTestCase {
    /// A command that starts `sleep 299` in the background, says its pid and waits for it.
    private func sleeper(_ directory: TemporaryDirectory) -> (command: String, pidFile: String) {
        let pidFile = directory.file("sleep.pid")
        return ("sleep 299 & echo $! > '\(pidFile)'; wait", pidFile)
    }

    /// The background `sleep`'s pid, once the command has written it (bounded).
    private func sleepPid(_ pidFile: String) throws -> pid_t {
        var pid: pid_t?
        let deadline = Date().addingTimeInterval(30)
        while pid == nil, Date() < deadline {
            pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if pid == nil { usleep(20_000) }
        }
        let found = try XCTUnwrap(pid, "the command wrote the pid of its sleep")
        addTeardownBlock { if Self.isAlive(found) { kill(found, SIGKILL) } }
        // Between the shell's fork and the exec its command line is the shell's (or empty for a moment).
        XCTAssertTrue(waitUntil(30) { ProcessTree.commandLine(of: found) == "sleep 299" }, "the pid is the sleep's")
        return found
    }

    /// Alive and not a zombie.
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    private func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    func testTheTimeoutEndsWhatTheCommandStarted() throws {
        let directory = try TemporaryDirectory(self)
        let (command, pidFile) = sleeper(directory)
        let commands = BoundedCommands(command: command, timeout: 1, grace: 1)
        XCTAssertTrue(commands.run(environment: [:], tag: "test"))
        let pid = try sleepPid(pidFile)
        XCTAssertTrue(waitUntil(30) { !Self.isAlive(pid) }, "the sleep the command started is gone after the 1 s timeout")
        XCTAssertTrue(waitUntil(30) { commands.runningCount == 0 }, "the command's slot is free again")
    }

    func testStopAllEndsWhatTheCommandsStarted() throws {
        let directory = try TemporaryDirectory(self)
        let (command, pidFile) = sleeper(directory)
        let commands = BoundedCommands(command: command, timeout: 600, grace: 1)
        XCTAssertTrue(commands.run(environment: [:], tag: "test"))
        let pid = try sleepPid(pidFile)
        commands.stopAll()
        XCTAssertTrue(waitUntil(30) { !Self.isAlive(pid) }, "the sleep is gone once oton's end has ended the commands")
        XCTAssertFalse(commands.run(environment: [:], tag: "test"), "nothing starts after the end")
    }

    func testAlertsBeyondTheLimitWaitAndAllRun() throws {
        let directory = try TemporaryDirectory(self)
        let release = directory.file("release")
        let command = "while [ ! -e '\(release)' ]; do sleep 0.05; done; touch '\(directory.path)/done.'\"$N\""
        let commands = BoundedCommands(command: command, maxRunning: 4, timeout: 600)
        for number in 1...10 {
            XCTAssertTrue(commands.run(environment: ["N": String(number)], tag: "test \(number)"), "alert \(number) runs or waits")
        }
        XCTAssertEqual(commands.runningCount, 4, "4 at once")
        XCTAssertEqual(commands.queuedCount, 6, "the other 6 wait")
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        let done = { (1...10).filter { FileManager.default.fileExists(atPath: directory.path + "/done.\($0)") }.count }
        XCTAssertTrue(waitUntil(60) { done() == 10 }, "all 10 commands ran (\(done()) did)")
        XCTAssertTrue(waitUntil(30) { commands.runningCount == 0 })
        XCTAssertEqual(commands.droppedCount, 0)
    }

    func testAlertsBeyondTheQueueAreDroppedAndCounted() throws {
        let directory = try TemporaryDirectory(self)
        let release = directory.file("release")
        let commands = BoundedCommands(command: "while [ ! -e '\(release)' ]; do sleep 0.05; done", maxRunning: 1, maxQueued: 2, timeout: 600)
        let accepted = (1...5).filter { commands.run(environment: [:], tag: "test \($0)") }.count
        XCTAssertEqual(accepted, 3, "one runs, two wait")
        XCTAssertEqual(commands.droppedCount, 2)
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        XCTAssertTrue(waitUntil(30) { commands.runningCount == 0 && commands.queuedCount == 0 })
    }
}
