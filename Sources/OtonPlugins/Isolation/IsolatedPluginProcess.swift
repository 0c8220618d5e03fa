import Foundation
import Logging
import OtonJSON
import OtonProcessKeeper
import OtonStations
import OtonSupport

/// Starting an isolated plugin's process (`oton plugin-host`, the keeper of its process tree) and
/// reading its first messages: a `registered` frame per command, then `ready` or `failed`.
///
/// Ending it is always a request to the keeper (SIGUSR1, ``end(_:)``): the keeper kills the worker
/// and everything the plugin forked, and then ends as the worker did. Only the keeper's exit,
/// reaped by ``IsolatedPlugin``'s watcher thread, says the plugin is gone; never the socket.
package enum IsolatedPluginProcess {
    package static let startSeconds = 20.0

    /// The data size an isolated plugin's worker may reach (RLIMIT_DATA: its heap, anonymous
    /// mappings and thread stacks), set before it loads the plugin. What a plugin holds can follow
    /// what others send it (the UPnP plugin's libsoup reads a whole device description into memory,
    /// 290 MB for a 60 MB one, issue 39 N16): over this an allocation fails, the worker dies, and
    /// it is restarted like any crash, while oton's own memory and playback are untouched. The
    /// UPnP worker has about 20 MiB of data at rest and 79 MiB after casting to gmediarender and
    /// back (45 MiB resident); a 200 MiB description took it to 756 MiB. The limit leaves over three
    /// times its normal use.
    package static let memoryLimitBytes: UInt64 = 256 << 20

    /// Where `oton plugin-host` is: this executable when it is oton, else the oton beside it (tests).
    package static var executable: String {
        let own = PluginLibrary.realPath("/proc/self/exe") ?? "oton"
        if (own as NSString).lastPathComponent == "oton" { return own }
        return ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("oton")
    }

    /// The environment variable that hands oton's log level to `oton plugin-host`.
    package static let logLevelVariable = "OTON_PLUGIN_HOST_LOG_LEVEL"

    /// Asks the keeper `pid` to end the plugin's whole process tree.
    package static func end(_ pid: pid_t) {
        if pid > 0 { kill(pid, SIGUSR1) }
    }

    /// Ends the keeper and waits for it (before a watcher exists).
    private static func endAndReap(_ pid: pid_t) -> Int32 {
        end(pid)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// `restart`: a start after a crash, which oton retries if it fails (the child's crash line says so).
    package static func spawn(
        entry: PluginEntry, path: String, directories: PluginManager.Directories, restart: Bool = false,
        into channel: inout IsolationChannel?, pid: inout pid_t
    ) throws -> IsolationManifest.Ready {
        let (ours, theirs) = try IsolationChannel.pair()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, theirs, 3)  // dup2 clears close-on-exec on fd 3
        oton_spawn_close_from(&actions, 4)  // and nothing else: GLib's spawn pipes have no close-on-exec
        // The config is not among them: any local user reads a command line (/proc/PID/cmdline),
        // and a config holds passwords. It is the first frame on the socket (``handConfig``).
        let arguments =
            [
                executable, "plugin-host", "--fd", "3", "--id", entry.id, "--path", path,
                "--data-home", directories.dataHome, "--cache-home", directories.cacheHome,
            ]
            + (restart ? ["--restart"] : [])
        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        // The child's crash is reported in one line (its culprit line, then ours with the signal);
        // Swift's backtracer would keep the dead child around for many seconds first.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // The child logs to the stderr it shares with oton, at oton's level: with the status line
        // showing, oton shows warnings only, and the child's info lines must not cross that line.
        environment[Self.logLevelVariable] = Logger(label: "oton.plugins").logLevel.rawValue
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        // A clean signal state: the calling thread may be a dispatch worker that blocks signals,
        // and the keeper must receive SIGUSR1.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGUSR1)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, &cArguments, &cEnvironment)
        close(theirs)
        guard spawned == 0 else {
            close(ours)
            throw IsolationError.system("starting \(executable) plugin-host", spawned)
        }
        pid = child
        let candidate = IsolationChannel(fd: ours)
        // The child's create() has this long to say ready or why not (each read, and all of them).
        let deadline = Date().addingTimeInterval(startSeconds)
        var limit = timeval(tv_sec: Int(startSeconds), tv_usec: 0)
        setsockopt(ours, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let handed = handConfig(entry.config, to: candidate)
        var registered: [(command: PluginManifest.Command, declared: Bool)] = []
        var first = candidate.receive()
        while let frame = first, frame.kind == .registered, Date() < deadline {
            // Kept up to twice the cap: the registry refuses (and logs) the rest; a flood costs no memory.
            if registered.count < 2 * CommandRule.maximumPerPlugin, let command = IsolationManifest.command(from: frame.header) {
                registered.append((command, frame.header["declared"]?.boolValue ?? false))
            }
            first = candidate.receive()
        }
        var none = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(ours, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        switch first?.kind {
        case .ready?:
            guard var ready = IsolationManifest.ready(from: first!.header) else {
                _ = endAndReap(child)
                throw IsolationError.child(tr("its ready message was unreadable"))
            }
            ready.commands = registered.map(\.command)
            ready.manifest.commands = registered.filter(\.declared).map(\.command)
            channel = candidate
            return ready
        case .failed?:
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            throw IsolationError.child(first?.header["reason"]?.stringValue ?? tr("create() failed"))
        default:
            let reason = candidate.refusal.map { tr("it sent {what}", ["what": $0]) }
            let status = endAndReap(child)
            let signal = status & 0x7f
            if first == nil, reason == nil, signal != 0, signal != 0x7f, signal != SIGKILL {
                // Its own crash line (OtonCrashGuard) said "oton goes on without it": so does oton.
                throw IsolationError.crashedStarting(signal: signalName(signal))
            }
            if reason == nil, !handed { throw IsolationError.child(tr("it did not take its config")) }
            throw IsolationError.child(
                reason ?? (first == nil ? tr("it {how} before it was ready", ["how": describe(status)]) : tr("it said something else than ready")))
        }
    }

    /// Sends the plugin's config as the child's first frame, its JSON text as the body (a config
    /// may be larger than a header). A child that does not read it within ``startSeconds`` is not
    /// waited for longer: false, and it is ended like one that never says ready.
    private static func handConfig(_ config: JSONValue, to channel: IsolationChannel) -> Bool {
        var limit = timeval(tv_sec: Int(startSeconds), tv_usec: 0)
        setsockopt(channel.fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        defer {
            var none = timeval(tv_sec: 0, tv_usec: 0)
            setsockopt(channel.fd, SOL_SOCKET, SO_SNDTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        }
        return channel.send(.config, body: Array(config.jsonText.utf8))
    }

    /// "crashed: SIGSEGV", "exited with status 3".
    package static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        if signal != 0 && signal != 0x7f {
            return tr("crashed: {signal}", ["signal": signalName(signal)])
        }
        return tr("exited with status {status}", ["status": String((status >> 8) & 0xff)])
    }

    package static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGABRT: "SIGABRT"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }
}
