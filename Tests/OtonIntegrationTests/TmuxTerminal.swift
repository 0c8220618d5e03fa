import Foundation
import OtonTestSupport
import XCTest

/// A real terminal for a test: a private tmux server (its own socket name) with one window of a
/// fixed size running one shell command. The server is killed when the test ends, whatever happened.
final class TmuxTerminal {
    private let socketName: String
    let columns: Int

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(_ testCase: XCTestCase, command: String, columns: Int = 80, rows: Int = 24) throws {
        socketName = "oton-test-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        self.columns = columns
        let name = socketName
        testCase.addTeardownBlock { [weak self] in
            // The pane's command leads its own process group; kill it whole, since a SIGHUP from
            // kill-server is lost on a process that inherited SIGHUP ignored.
            if let group = self?.paneProcessGroup { kill(-group, SIGKILL) }
            _ = try? runProcess("/usr/bin/env", ["tmux", "-L", name, "kill-server"])
        }
        // posix_spawn and waitpid rather than Foundation's Process, whose wait never returned for a
        // tmux client that daemonizes its server (the client stayed a zombie). The server gets
        // /dev/null for its output, so that no reader waits for a pipe it holds open.
        let arguments = [
            "tmux", "-L", socketName, "-f", "/dev/null", "new-session", "-d", "-s", "oton",
            "-x", String(columns), "-y", String(rows), command,
        ]
        let environment = Self.environment.map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0) }
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, envp) == 0 else { throw Failure(description: "cannot start tmux") }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw Failure(description: "tmux new-session did not return within 10 s")
            }
            usleep(20_000)
        }
        guard status == 0 else { throw Failure(description: "tmux new-session ended with wait status \(status)") }
        paneProcessGroup = pid_t(
            try tmux(["display-message", "-p", "-t", "oton", "#{pane_pid}"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The process group of the command in the pane (its leader is the pane's first process).
    private var paneProcessGroup: pid_t?

    private static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["TMUX"] = nil
        return environment
    }

    private func tmux(_ arguments: [String]) throws -> ProcessResult {
        try runProcess("/usr/bin/env", ["tmux", "-L", socketName] + arguments, environment: Self.environment)
    }

    /// The visible screen, one string per row (trailing blanks removed).
    func screen() throws -> [String] {
        let captured = try tmux(["capture-pane", "-p", "-t", "oton"])
        return captured.stdout.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
    }

    /// Types `keys` as they are (no key names).
    func type(_ keys: String) throws {
        _ = try tmux(["send-keys", "-t", "oton", "-l", keys])
    }

    /// Polls the screen until `predicate` holds, and returns that screen; throws with the last
    /// screen at the deadline. (A terminal offers nothing to await but its contents.)
    @discardableResult
    func waitForScreen(_ what: String, timeout: TimeInterval = 20, _ predicate: ([String]) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var rows: [String] = []
        while Date() < deadline {
            rows = try screen()
            if predicate(rows) { return rows }
            usleep(100_000)
        }
        throw Failure(description: "timed out waiting for \(what); the screen was:\n" + rows.joined(separator: "\n"))
    }
}
