import Foundation
import OtonSupport

/// Runs the `oton` beside this executable as a user would (`oton stations …`), for what the CLI
/// already does well: the directory search, the atomic plugins.json editor and the alarms' units.
enum OtonCommand {
    /// Runs `oton WORDS`, bounded to 60 s; its output, and on failure its first line of standard error.
    /// `started` gets the child once it runs (to end it early: a search a newer one replaced).
    static func run(_ words: [String], started: (Process) -> Void = { _ in }) -> (status: Int32, output: String, message: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PlayerProcess.otonExecutable())
        process.arguments = words
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (127, "", "\(error)") }
        started(process)
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + 60)
        timer.setEventHandler { end(process) }
        timer.resume()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        timer.cancel()
        let line = problem.split(separator: "\n").first.map(String.init) ?? tr("`oton {command}` failed", ["command": words.prefix(2).joined(separator: " ")])
        // "oton: …" from oton, "Error: …" from the argument parser (a name or URL refused).
        let said = ["oton: ", "Error: "].first { line.hasPrefix($0) }.map { String(line.dropFirst($0.count)) } ?? line
        return (process.terminationStatus, text, said)
    }

    /// Ends a child at once. SIGKILL, not SIGTERM: a child started from a dispatch queue's thread
    /// inherits its signal mask, which blocks SIGTERM, so `terminate()` never reached it.
    static func end(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
