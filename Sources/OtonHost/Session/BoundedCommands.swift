import Foundation
import Logging
import OtonSupport

/// Runs a user's shell command for an event (`oton record --on-alert CMD`), bounded: at most
/// `maxRunning` at once (one more is refused and logged, never queued without end), each killed
/// (its whole process group, SIGKILL) after `timeout` seconds, its output (standard output and
/// error together, the first 4 KiB) logged line by line at info level with the command's tag.
/// The values go in the environment, never into the command line, so no value is ever parsed by
/// the shell. Thread safe; `run` returns at once.
package final class BoundedCommands: @unchecked Sendable {  // `lock` guards `running`
    package let command: String
    package let maxRunning: Int
    package let timeout: Double
    private let lock = NSLock()
    private var running = 0
    private let logger: Logger
    private static let outputLimit = 4096

    package init(command: String, maxRunning: Int = 4, timeout: Double = 30, logger: Logger = Logger(label: "oton.on-alert")) {
        self.command = command
        self.maxRunning = max(1, maxRunning)
        self.timeout = max(0.1, timeout)
        self.logger = logger
    }

    /// Runs the command with `environment` added to the process's; `tag` names it in the log.
    /// False when `maxRunning` commands are still running (this one is not run).
    @discardableResult
    package func run(environment: [String: String], tag: String) -> Bool {
        lock.lock()
        guard running < maxRunning else {
            lock.unlock()
            logger.warning("\(tr("{tag}: not run: {count} commands are still running (at most {count} at once)", ["tag": tag, "count": String(maxRunning)]))")
            return false
        }
        running += 1
        lock.unlock()
        let process = Process()
        // setsid: the shell leads a process group of its own, so the timeout reaches what it started too.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["/bin/sh", "-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            finished()
            logger.error("\(tr("{tag}: cannot run {command}: {reason}", ["tag": tag, "command": command, "reason": error.localizedDescription]))")
            return false
        }
        let pid = process.processIdentifier
        let timeout = timeout
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [logger] in
            guard process.isRunning else { return }  // (Process reaps it: a pid it has reaped is never signalled)
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            logger.warning("\(tr("{tag}: killed after {seconds} s", ["tag": tag, "seconds": String(format: "%.0f", timeout)]))")
        }
        DispatchQueue.global().async { [self] in
            let handle = pipe.fileHandleForReading
            var kept = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                if kept.count < Self.outputLimit { kept.append(chunk.prefix(Self.outputLimit - kept.count)) }
            }
            process.waitUntilExit()
            for line in String(decoding: kept, as: UTF8.self).split(separator: "\n") {
                logger.info("\(tag): \(line)")
            }
            if process.terminationReason == .exit && process.terminationStatus != 0 {
                logger.warning("\(tr("{tag}: the command ended with status {status}", ["tag": tag, "status": String(process.terminationStatus)]))")
            }
            finished()
        }
        return true
    }

    /// Commands running now.
    package var runningCount: Int {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    private func finished() {
        lock.lock(); running -= 1; lock.unlock()
    }
}
