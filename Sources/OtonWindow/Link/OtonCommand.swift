import Foundation
import OtonSupport

/// Runs the `oton` beside this executable as a user would (`oton stations …`), for what the CLI
/// already does well: the directory search, the atomic plugins.json editor and the alarms' units.
enum OtonCommand {
    /// Runs `oton WORDS`, bounded to 60 s; its output, and on failure its first line of standard error.
    static func run(_ words: [String]) -> (status: Int32, output: String, message: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PlayerProcess.otonExecutable())
        process.arguments = words
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (127, "", "\(error)") }
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + 60)
        timer.setEventHandler { if process.isRunning { process.terminate() } }
        timer.resume()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        timer.cancel()
        let line = problem.split(separator: "\n").first.map(String.init) ?? tr("`oton {command}` failed", ["command": words.prefix(2).joined(separator: " ")])
        return (process.terminationStatus, text, line.hasPrefix("oton: ") ? String(line.dropFirst(6)) : line)
    }
}
