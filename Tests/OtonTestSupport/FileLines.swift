import Foundation

/// The lines of the file at `path` once `done` holds for them, or what they are when `timeout` runs
/// out (the caller's assertion then says what was missing). The file is written by another process
/// (a plugin inside oton, a fixture script), so it is read again every 20 ms until then.
public func waitForLines(_ path: String, timeout: TimeInterval, until done: ([String]) -> Bool) -> [String] {
    let deadline = Date().addingTimeInterval(timeout)
    var lines: [String] = []
    while Date() < deadline {
        lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        if done(lines) { return lines }
        usleep(20_000)
    }
    return lines
}
