import Foundation
import XCTest

/// The processes under one, and what any local user can read of them.
public enum ProcessTree {
    /// `root` and its descendants, from the parent pid in every /proc/PID/stat.
    public static func pids(from root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the name: the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { children[parent, default: []].append(pid) }
        }
        var tree = [root]
        var next = 0
        while next < tree.count {
            tree += children[tree[next]] ?? []
            next += 1
        }
        return tree
    }

    /// A process's command line, its words joined by spaces; nil when it has gone.
    public static func commandLine(of pid: pid_t) -> String? {
        FileManager.default.contents(atPath: "/proc/\(pid)/cmdline").map {
            String(decoding: $0, as: UTF8.self).split(separator: "\0").joined(separator: " ")
        }
    }

    /// Reads /proc/PID/cmdline and /proc/PID/environ of `root` and of every process under it: `secret`
    /// is in none. At least `count` of them have `word` on their command line (the processes the
    /// secret was for were looked at), and their environment was readable.
    public static func assertNowhereVisible(
        _ secret: String, under root: pid_t, atLeast count: Int, runningWith word: String, _ when: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let tree = pids(from: root)
        var found = 0
        for pid in tree {
            guard let words = commandLine(of: pid) else { continue }
            let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            if words.contains(word) {
                found += 1
                XCTAssertNotNil(environ, "\(when): the environment of \(pid) is readable (\(words))", file: file, line: line)
            }
            XCTAssertFalse(words.contains(secret), "\(when): the secret is on the command line of \(pid): \(words)", file: file, line: line)
            let environment = String(decoding: environ ?? Data(), as: UTF8.self)
            XCTAssertFalse(environment.contains(secret), "\(when): the secret is in the environment of \(pid) (\(words))", file: file, line: line)
        }
        XCTAssertGreaterThanOrEqual(found, count, "\(when): processes running with \(word) were looked at: \(tree)", file: file, line: line)
    }
}
