import Foundation
import OtonTestSupport
import XCTest

/// Tests/Fixtures/hostile_server.py on loopback: one path per way a station or
/// a status API misbehaves (see the script's docstring). Killed when the test ends.
final class HostileServer: @unchecked Sendable {
    let port: UInt16
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []

    init(_ testCase: XCTestCase, maxSeconds: Int = 300) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestPaths.root + "/Tests/Fixtures/hostile_server.py", String(maxSeconds)]
        process.standardOutput = output
        process.standardInput = input // the server exits when this closes (the test process died)
        process.standardError = FileHandle.standardError
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let reader = output.fileHandleForReading
        var buffer = Data()
        var port: UInt16?
        while port == nil {
            let chunk = reader.availableData
            guard !chunk.isEmpty else { throw XCTSkip("hostile_server.py exited before listening") }
            buffer.append(chunk)
            if let text = String(data: buffer, encoding: .utf8), let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }) {
                port = UInt16(line.dropFirst(5))
            }
        }
        self.port = port!
        reader.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            guard let self else { return }
            self.lock.lock(); self.lines += text.split(separator: "\n").map(String.init); self.lock.unlock()
        }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// How many requests for `path` (query ignored) the server has seen.
    func requests(_ path: String) -> Int {
        lock.lock(); defer { lock.unlock() }
        return lines.filter { $0 == "REQUEST " + path || $0.hasPrefix("REQUEST " + path + "?") }.count
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
