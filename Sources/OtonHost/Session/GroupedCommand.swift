import Foundation
import OtonSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One `/bin/sh -c COMMAND` in a process group of its own (the shell leads it, so its pid is the
/// group's id), with its standard output and error on one pipe. Everything the shell starts
/// stays in the group unless it leaves it on purpose, so ending the group ends what the command
/// started too (`sleep 299 &`). The shell is observed without being reaped (waitid WNOWAIT) until
/// the group has been signalled for the last time: while it is a zombie its pid, the group's id,
/// cannot be reused, so a signal never reaches a stranger.
final class GroupedCommand: @unchecked Sendable {  // `lock` guards `ending` and `reaped`; the rest is set once
    let pid: pid_t
    private let output: Int32
    private let lock = NSLock()
    private var ending = false
    private var reaped = false

    /// Starts the shell; throws the spawn's error.
    init(command: String, environment: [String: String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Failure(code: errno) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // (pipe2 is not in Glibc's Swift module)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)  // dup2 clears close-on-exec
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        // A group of its own (pgid 0: the child's pid), and a clean signal state: the calling
        // thread may be a dispatch worker that blocks signals.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = ["/bin/sh", "-c", command]
        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, "/bin/sh", &actions, &attributes, &cArguments, &cEnvironment)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw Failure(code: spawned)
        }
        pid = child
        output = pipeEnds[0]
    }

    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    /// How the command ended.
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Waits for the shell to end, its output to close and the rest of its group to end, keeping
    /// the first `outputLimit` bytes; at `timeout` seconds ends the group (``end(grace:)``) and
    /// calls `timedOut`. Reaps the shell.
    func wait(timeout: Double, grace: Double, outputLimit: Int, timedOut: () -> Void) -> (Ending, Data) {
        let deadline = Self.now() + timeout
        var kept = Data()
        var outputOpen = true
        var exited = false
        var killedAt: Double?
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if outputOpen {
                var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 100) > 0 {
                    let count = read(output, &buffer, buffer.count)
                    if count > 0 {
                        if kept.count < outputLimit { kept.append(contentsOf: buffer[0..<min(count, outputLimit - kept.count)]) }
                    } else if count == 0 || errno != EINTR {
                        outputOpen = false
                    }
                }
            } else {
                usleep(100_000)
            }
            if !exited { exited = hasExited() }
            // Done when the shell has ended, its output is closed and nothing it started is left in
            // the group (what is left is ended at the timeout, like the shell).
            if exited && !outputOpen && (killedAt != nil || Self.groupMembers(pid).isEmpty) { break }
            let now = Self.now()
            if killedAt == nil, now >= deadline {
                timedOut()
                end(grace: grace)
                killedAt = now
            }
            // What still holds the output after the whole group got SIGKILL left the group: not waited for.
            if let killedAt, exited, now >= killedAt + grace + 1 { break }
        }
        close(output)
        lock.lock()
        reaped = true  // no signal to the group from now on: its id may be reused
        lock.unlock()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return (signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal), kept)
    }

    /// SIGTERM to the whole group, then SIGKILL after `grace` seconds unless the group is gone.
    /// Once: later calls return at once. Never after ``wait`` has reaped the shell.
    func end(grace: Double) {
        lock.lock()
        guard !ending else {
            lock.unlock()
            return
        }
        ending = true
        lock.unlock()
        signalGroup(SIGTERM)
        let deadline = Self.now() + grace
        while Self.now() < deadline, groupAlive() { usleep(50_000) }
        signalGroup(SIGKILL)
    }

    private func signalGroup(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if !reaped { kill(-pid, signal) }
    }

    /// True while some process of the group lives (the zombie shell counts only until reaped).
    private func groupAlive() -> Bool {
        lock.lock()
        let gone = reaped || kill(-pid, 0) != 0
        lock.unlock()
        guard !gone else { return false }
        // Only the zombie shell left: the group is done.
        return !(hasExited() && Self.groupMembers(pid).isEmpty)
    }

    private func hasExited() -> Bool {
        var info = siginfo_t()  // zeroed: si_signo stays 0 while the shell runs
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_signo == SIGCHLD
    }

    /// The live processes (not zombies) of group `group`, from /proc.
    private static func groupMembers(_ group: pid_t) -> [pid_t] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { name -> pid_t? in
            guard let pid = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 3, fields[0] != "Z", pid_t(fields[2]) == group else { return nil }
            return pid
        }
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
