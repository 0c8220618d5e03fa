import Foundation
import Logging
import OtonHost

/// The one owner of the terminal's last row while the status line shows: the
/// status line draws it, and a log line is printed on its own row above it,
/// after which the status line is drawn again. Any thread.
/// Concurrency: `statusLine` and the terminal writes are guarded by `lock`.
final class TerminalRow: @unchecked Sendable {
    static let shared = TerminalRow()

    private let lock = NSLock()
    private var statusLine: String?

    /// Replaces the status row with `line` (no newline).
    func draw(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        statusLine = line
        StandardOutput.write("\r\u{1B}[2K" + line)
    }

    /// Prints `text` on a row of its own above the status line, then redraws the status line.
    func log(_ text: String) {
        lock.lock(); defer { lock.unlock() }
        guard let statusLine else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
            return
        }
        StandardOutput.write("\r\u{1B}[2K")
        FileHandle.standardError.write(Data((text + "\n").utf8))
        StandardOutput.write(statusLine)
    }

    /// Prints `text` (one or more lines) on standard output above the status line, where it stays
    /// in the scrollback for reading, then redraws the status line: the key list, a share text.
    func show(_ text: String) {
        lock.lock(); defer { lock.unlock() }
        guard let statusLine else {
            StandardOutput.write(text + "\n")
            return
        }
        StandardOutput.write("\r\u{1B}[2K" + text.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n" + statusLine)
    }

    /// The status line is gone: end its row, and logs go straight to standard error again.
    func finish() {
        lock.lock(); defer { lock.unlock() }
        guard statusLine != nil else { return }
        statusLine = nil
        StandardOutput.write("\n")
    }
}

/// swift-log's lines through ``TerminalRow``: "level label: message", one row each.
struct TerminalLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        TerminalRow.shared.log("\(level) \(label): \(message)")
    }
}
