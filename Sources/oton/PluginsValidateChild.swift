import Foundation
import OtonHost
import Synchronization

/// Starts `oton plugins validate-one` for one check and turns what happened to it into an outcome:
/// its report, or the signal that ended it, or the time limit it ran past.
enum ValidationChild {
    /// Every check, in ValidationCheck's order: the descriptor first, alone (nothing else can run
    /// when it fails), then the others in children side by side, a few at a time: each check is its
    /// own process with its own folder, and most of a check's time is waiting on the plugin.
    static func runAll(library: String, config: String, limit: Double) -> [(ValidationCheck, ValidationOutcome)] {
        let descriptor = run(.descriptor, library: library, config: config, limit: limit)
        let rest = ValidationCheck.allCases.filter { $0 != .descriptor }
        if case .fail = descriptor {
            return [(.descriptor, descriptor)] + rest.map { ($0, .skip("the descriptor check failed")) }
        }
        let outcomes = Mutex([ValidationOutcome?](repeating: nil, count: rest.count))
        let width = min(4, max(2, ProcessInfo.processInfo.activeProcessorCount))
        let slots = DispatchSemaphore(value: width)
        let group = DispatchGroup()
        for index in rest.indices {
            group.enter()
            Thread.detachNewThread {
                slots.wait()
                let outcome = run(rest[index], library: library, config: config, limit: limit)
                slots.signal()
                outcomes.withLock { $0[index] = outcome }
                group.leave()
            }
        }
        group.wait()
        // A refusal may come from two checks side by side wanting one thing (the port a config
        // names): such a check runs again, alone.
        for index in rest.indices {
            if case let .skip(reason)? = outcomes.withLock({ $0[index] }), reason.hasPrefix(PluginValidator.refusalPrefix) {
                let again = run(rest[index], library: library, config: config, limit: limit)
                outcomes.withLock { $0[index] = again }
            }
        }
        let found = outcomes.withLock { $0 }
        return [(.descriptor, descriptor)] + zip(rest, found).map { ($0, $1 ?? .fail("no outcome")) }
    }

    static func run(_ check: ValidationCheck, library: String, config: String, limit: Double) -> ValidationOutcome {
        let report = NSTemporaryDirectory() + "/oton-validate-\(getpid())-\(check.rawValue).report"
        guard FileManager.default.createFile(atPath: report, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            return .fail("cannot create the report file \(report)")
        }
        defer { unlink(report) }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return .fail("cannot find the oton executable")
        }
        // The child works in an empty folder of its own: a config the plugin takes as a relative
        // file name (the hostile ones) must not leave files where the user runs the validator.
        let folder = NSTemporaryDirectory() + "/oton-validate-\(getpid())-\(check.rawValue)"
        guard
            (try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])) != nil
        else {
            return .fail("cannot create the working folder \(folder)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = Process()
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.executableURL = URL(fileURLWithPath: executable)
        // The config goes down the child's standard input, never on its command line: with
        // `validate ID` it is the entry's from plugins.json, passwords included, and any local
        // user reads /proc/PID/cmdline. Its length is an argument: the child reads that much and
        // does not wait for the end of the pipe (a child started beside it may hold the pipe too).
        let bytes = Data(config.utf8)
        process.arguments = [
            "plugins", "validate-one", "--check", check.rawValue, "--report", report, "--limit", String(limit),
            "--config-bytes", String(bytes.count), library,
        ]
        let input = Pipe()
        process.standardInput = input
        // What the plugin prints is not the validator's output; its stderr is kept for the crash
        // line that names the callback (OtonCrashGuard).
        let errors = folder + "/stderr.log"
        _ = FileManager.default.createFile(atPath: errors, contents: nil, attributes: [.posixPermissions: 0o600])
        process.standardOutput = FileHandle.nullDevice
        // A crash is reported by its signal and the crash guard's line; Swift's backtracer would
        // keep the dead child symbolicating for seconds first (as for an isolated plugin's host).
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        process.standardError = FileHandle(forWritingAtPath: errors) ?? FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do { try process.run() } catch { return .fail("cannot start \(executable): \(error.localizedDescription)") }
        // Written beside the wait: a config larger than the pipe holds is read as the child starts,
        // and a child that dies first gives EPIPE (not SIGPIPE), not a writer stuck for good.
        signal(SIGPIPE, SIG_IGN)
        let writer = input.fileHandleForWriting
        Thread.detachNewThread {
            try? writer.write(contentsOf: bytes)
            try? writer.close()
        }
        // Every call has `limit`; a check makes many, so the whole check gets a generous bound.
        let budget = 30 + limit * 10
        let finished = ended.wait(timeout: .now() + budget) == .success
        if !finished {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        let lines = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let phase = lines.last { $0.hasPrefix("phase\t") }.map { String($0.dropFirst(6)) } ?? "starting"
        if !finished {
            return .fail("did not finish within \(Int(budget)) s (stuck in: \(phase))")
        }
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            let name = signalName(signal)
            let lines = stderrTail(errors)
            let callback = crashedCallback(lines)
            let place = callback.map { phase.hasPrefix($0) ? phase : "\($0) (the validator was at: \(phase))" } ?? phase
            // What the validator knew of the fault (a write into a guard page), said first.
            let cause = lines.last { $0.hasPrefix(validatorNote) }.map { $0.dropFirst(validatorNote.count) + ": " } ?? ""
            return .fail("\(cause)crashed with \(name) (signal \(signal)) in \(place); in oton this ends the whole process")
        }
        for line in lines.reversed() {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let text = parts.count > 1 ? parts[1] : ""
            switch parts[0] {
            case "pass": return .pass(note: text.isEmpty ? nil : text)
            case "skip": return .skip(text)
            case "warn": return .warn(text)
            case "fail": return .fail(text)
            default: continue
            }
        }
        return .fail("exited with status \(process.terminationStatus) in \(phase) without a result (the plugin called exit?)")
    }

    /// How a line the validator's child has the crash guard write begins (oton_crash_guard_watch).
    private static let validatorNote = "oton: validate: "

    /// The lines of the last 64 KiB the child wrote to stderr.
    private static func stderrTail(_ path: String) -> [Substring] {
        guard let file = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? file.close() }
        let size = (try? file.seekToEnd()) ?? 0
        try? file.seek(toOffset: size > 65536 ? size - 65536 : 0)
        let text = String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n")
    }

    /// The callback the crash guard's line names ("oton: plugin ID (FILE) crashed in on_event: …");
    /// nil when there is no such line.
    private static func crashedCallback(_ lines: [Substring]) -> String? {
        guard let line = lines.last(where: { $0.hasPrefix("oton: plugin ") && $0.contains(") crashed in ") }),
            let range = line.range(of: ") crashed in ")
        else { return nil }
        let callback = line[range.upperBound...].prefix { $0 != ":" }
        return callback.isEmpty ? nil : String(callback)
    }

    private static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGFPE: "SIGFPE"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGKILL: "SIGKILL"
        default: String(cString: strsignal(signal))
        }
    }
}
