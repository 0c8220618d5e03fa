import Foundation
import OtonSupport

/// The user's systemd manager, reached through `systemctl --user` and `systemd-analyze`: whether one
/// runs, reloading it, enabling and disabling timers, and when a calendar expression next elapses.
public struct SystemdUserManager: Sendable {
    public let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// A manager runs when its private socket exists and `systemctl --user is-system-running` says so.
    public var isRunning: Bool {
        guard let runtime = XDGPaths(environment: environment).runtimeDirectory,
            FileManager.default.fileExists(atPath: runtime + "/systemd/private")
        else { return false }
        let state = run(["systemctl", "--user", "is-system-running"])?.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return ["running", "degraded", "starting", "initializing"].contains(state ?? "")
    }

    /// Runs `systemctl --user ARGS…`; the error text when it fails.
    public func systemctl(_ arguments: [String]) -> String? {
        guard let result = run(["systemctl", "--user"] + arguments) else { return "systemctl cannot be started" }
        return result.status == 0 ? nil : result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `systemctl ARGS…` for the system manager (as root: `--wake` alarms); the error text when it fails.
    public func systemSystemctl(_ arguments: [String]) -> String? {
        guard let result = run(["systemctl"] + arguments) else { return "systemctl cannot be started" }
        return result.status == 0 ? nil : result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// systemd's version (252 on Debian 12), from `systemctl --version`; nil without systemd.
    public var systemdVersion: Int? {
        guard let output = run(["systemctl", "--version"])?.output, output.hasPrefix("systemd ") else { return nil }
        return Int(output.dropFirst(8).prefix { $0.isNumber })
    }

    /// From systemd 254 a user manager of a local session holds CAP_WAKE_ALARM, so WakeSystem= in a user timer wakes the machine.
    public static let firstVersionWakingFromUserTimers = 254

    /// "Tue 2026-12-01 20:00:00 CET" (or "never"), from `systemd-analyze calendar --iterations=1`; nil without it.
    public func nextElapse(_ onCalendar: String) -> String? {
        guard let result = run(["systemd-analyze", "calendar", "--iterations=1", onCalendar]), result.status == 0 else { return nil }
        for line in result.output.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Next elapse:") { return String(trimmed.dropFirst(12)).trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// Runs a program found on PATH, standard output and error together; nil when it cannot start.
    package func run(_ arguments: [String]) -> (status: Int32, output: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard !(process.terminationReason == .exit && process.terminationStatus == 127) else { return nil }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
