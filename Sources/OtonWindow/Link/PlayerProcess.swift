import Foundation

/// A player the window started itself: `oton play --no-tui --instance NAME --quit-when-stdin-closes`.
/// Its standard input is a pipe only this process holds, so the player quits when the window
/// quits, and also when the window dies without a word: a player is never left without a way to stop it.
final class PlayerProcess: @unchecked Sendable {
    private let process = Process()
    private let lifeline = Pipe()

    /// Starts the `oton` beside this executable (or `OTON_WINDOW_PLAYER`).
    init(instance: String, config: String?) throws {
        process.executableURL = URL(fileURLWithPath: Self.otonExecutable())
        var arguments = ["play", "--no-tui", "--instance", instance, "--quit-when-stdin-closes"]
        if let config { arguments += ["--config", config] }
        process.arguments = arguments
        process.standardInput = lifeline
        try process.run()
        // The child has its end; ours must not leak into anything else this process starts.
        _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        try? lifeline.fileHandleForReading.close()
    }

    var isRunning: Bool { process.isRunning }
    var identifier: Int32 { process.processIdentifier }

    /// Leaves the player playing after the window: says `keep-playing` down the lifeline, then closes it
    /// (`oton play --quit-when-stdin-closes` goes on after that line, see PlayCommand).
    func leavePlaying() {
        try? lifeline.fileHandleForWriting.write(contentsOf: Data("keep-playing\n".utf8))
        try? lifeline.fileHandleForWriting.close()
    }

    /// Closes the lifeline (the player stops as on Ctrl-C) and waits up to `seconds` for it to end.
    func stop(waiting seconds: Double) {
        try? lifeline.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// The `oton` executable beside this one (`.build/debug/oton`, `<prefix>/bin/oton`).
    static func otonExecutable() -> String {
        if let chosen = ProcessInfo.processInfo.environment["OTON_WINDOW_PLAYER"], !chosen.isEmpty { return chosen }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("oton").path
    }
}
