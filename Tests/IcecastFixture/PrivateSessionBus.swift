import Foundation

/// A private `dbus-daemon --session` on a socket in a temporary directory, for
/// MPRIS and notification tests. Nothing touches the user's own session bus.
public final class PrivateSessionBus: @unchecked Sendable {
    public let address: String
    private let directory: URL
    private let daemon: ManagedProcess

    private init(address: String, directory: URL, daemon: ManagedProcess) {
        self.address = address
        self.directory = directory
        self.daemon = daemon
    }

    /// Starts the daemon and waits until it answers.
    public static func start() async throws -> PrivateSessionBus {
        let directory = try makeTemporaryDirectory(prefix: "oton-dbus")
        let socket = directory.appendingPathComponent("bus").path
        let address = "unix:path=\(socket)"
        let daemon = ManagedProcess(
            name: "dbus-daemon", executable: "/usr/bin/dbus-daemon",
            arguments: ["--session", "--nofork", "--nopidfile", "--address=\(address)"],
            stderr: try logFileHandle(directory.appendingPathComponent("daemon.log")))
        try daemon.start()
        let bus = PrivateSessionBus(address: address, directory: directory, daemon: daemon)
        do {
            try await pollUntilTrue(timeout: 10, "dbus-daemon at \(address)") {
                guard daemon.isRunning else { throw FixtureError("dbus-daemon exited: \(bus.daemonLog)") }
                return try bus.run(
                    "/usr/bin/dbus-send",
                    [
                        "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus",
                        "/org/freedesktop/DBus", "org.freedesktop.DBus.GetId",
                    ]
                ).status == 0
            }
        } catch {
            bus.stop()
            throw error
        }
        return bus
    }

    /// The current environment with DBUS_SESSION_BUS_ADDRESS pointing at this bus.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }

    public var daemonLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? ""
    }

    /// True when some connection owns `name` on this bus.
    public func hasOwner(_ name: String) throws -> Bool {
        let result = try run(
            "/usr/bin/dbus-send",
            [
                "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:\(name)",
            ])
        return result.status == 0 && result.stdout.contains("boolean true")
    }

    /// Runs a client (playerctl, dbus-send …) against this bus, bounded by `timeout` seconds.
    public func run(_ executable: String, _ arguments: [String], timeout: Int = 10) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--kill-after=2", String(timeout), executable] + arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Stops the daemon and removes its directory. Idempotent.
    public func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
