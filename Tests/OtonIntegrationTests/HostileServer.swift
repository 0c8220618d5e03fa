import Foundation
import OtonTestSupport
import XCTest

/// Tests/Fixtures/hostile_server.py on loopback: one path per way a station or
/// a status API misbehaves (see the script's docstring). Killed when the test ends.
final class HostileServer: @unchecked Sendable {
    private let server: ScriptServer
    var port: UInt16 { server.port }

    init(_ testCase: XCTestCase, maxSeconds: Int = 300) throws {
        server = try ScriptServer(testCase, script: "hostile_server.py", arguments: [String(maxSeconds)])
    }

    func url(_ path: String) -> String { server.url(path) }

    /// How many requests for `path` (query ignored) the server has seen.
    func requests(_ path: String) -> Int {
        server.printed.filter { $0 == "REQUEST " + path || $0.hasPrefix("REQUEST " + path + "?") }.count
    }
}

/// Resident and peak memory of a process, from /proc (kB).
struct ProcessMemory {
    let residentKB: Int
    let peakKB: Int

    init?(pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func value(_ key: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
        }
        guard let rss = value("VmRSS"), let peak = value("VmHWM") else { return nil }
        residentKB = rss
        peakKB = peak
    }
}
