import Foundation
import OtonTestSupport
import XCTest

/// A fixture server script (Tests/Fixtures/NAME.py) on loopback, the one way the tests start one:
/// it prints "PORT n" (or another `readyPrefix`) once it listens, then a line for each thing a test
/// may ask about (requests, handshakes), kept here in order. Its stdin is a pipe: the script ends when
/// that closes (the test process died), and ``send(_:)`` gives it commands. Killed when the test ends
/// (SIGKILL: the test process may block SIGTERM, and a child inherits that).
final class ScriptServer: @unchecked Sendable {
    /// Where it listens (0 until it said so, which ``init`` waits for).
    private(set) var port: UInt16 = 0
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []
    /// What came after the last newline: the start of a line still being written.
    private var partial = Data()

    struct StartFailed: Error, CustomStringConvertible {
        let script: String
        var description: String {
            "\(script) ended before it listened; its error is above (scripts/bootstrap installs what the fixtures need)"
        }
    }

    init(_ testCase: XCTestCase, script: String, arguments: [String], readyPrefix: String = "PORT ") throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestPaths.root + "/Tests/Fixtures/" + script] + arguments
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.standardError
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let reader = output.fileHandleForReading
        while port == 0 {
            let chunk = reader.availableData
            guard !chunk.isEmpty else { throw StartFailed(script: script) }
            let got = take(chunk)
            if let ready = got.firstIndex(where: { $0.hasPrefix(readyPrefix) }) {
                port = UInt16(got[ready].dropFirst(readyPrefix.count)) ?? 0
                lines += got[(ready + 1)...]  // what it printed right after, in the same read
            }
        }
        reader.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard let self, !chunk.isEmpty else { return }
            let complete = self.take(chunk)
            self.lock.lock(); self.lines += complete; self.lock.unlock()
        }
    }

    /// The whole lines `chunk` completes (a line may come in two reads).
    private func take(_ chunk: Data) -> [String] {
        lock.lock(); defer { lock.unlock() }
        partial.append(chunk)
        guard let end = partial.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let text = String(decoding: partial[partial.startIndex..<end], as: UTF8.self)
        partial = Data(partial[(end + 1)...])
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The lines printed since it listened, in order.
    var printed: [String] {
        lock.lock(); defer { lock.unlock() }
        return lines
    }

    /// Writes `line` (and a newline) to the script's stdin.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
