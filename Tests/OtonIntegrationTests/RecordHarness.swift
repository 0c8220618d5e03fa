import Foundation
import OtonTestSupport
import XCTest

/// An `oton record` process with its events file, output folder and helpers to look at what it wrote.
final class RecordHarness: @unchecked Sendable {
    let directory: TemporaryDirectory
    let out: String
    let eventsPath: String
    let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let output = OutputBuffer()

    init(
        _ testCase: XCTestCase, url: String, extra: [String] = [], out: String? = nil, environment: [String: String] = [:],
        config configText: String = #"{"stations": [], "plugins": []}"#
    ) throws {
        directory = try TemporaryDirectory(testCase)
        self.out = out ?? directory.file("out")
        eventsPath = directory.file("events.jsonl")
        let config = try directory.write("plugins.json", configText)
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["record", url, "--out", self.out, "--config", config, "--events", eventsPath, "--min-seconds", "1"] + extra
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache")].merging(environment) { $1 }
        ) { $1 }
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        let output = self.output
        stdoutPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            output.append(stdout: data)
        }
        stderrPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            output.append(stderr: data)
        }
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
    }

    func start() throws { try process.run() }

    var stdout: String { output.stdout }
    var stderr: String { output.stderr }

    /// Every event line written so far, parsed.
    var events: [[String: Any]] {
        ((try? String(contentsOfFile: eventsPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func fields(_ event: [String: Any]) -> [String: String] { event["fields"] as? [String: String] ?? [:] }

    /// Waits (polling the events file oton writes, with a deadline) for an event matching the predicate.
    @discardableResult
    func waitForEvent(_ kind: String, timeout: TimeInterval = 20, where predicate: ([String: String]) -> Bool = { _ in true }) -> [String: String]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let match = events.first(where: { $0["kind"] as? String == kind && predicate(fields($0)) }) { return fields(match) }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        return events.first(where: { $0["kind"] as? String == kind && predicate(fields($0)) }).map(fields)
    }

    func finishedEvents() -> [[String: String]] {
        events.filter { $0["kind"] as? String == "org.oton.recording.finished" }.map(fields)
    }

    /// SIGTERM and wait; returns the exit code.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        output.waitForBothEnds(timeout: 10)
        return process.terminationStatus
    }

    /// The exit code once oton has ended and its stdout and stderr have been read to their ends (the
    /// last lines arrive on another thread: an exit seen first once gave an empty stderr), or nil.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { return nil }
        output.waitForBothEnds(timeout: 10)
        return process.terminationStatus
    }

    /// Every regular file under the output folder, relative to it.
    func files() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: out) else { return [] }
        var result: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: out + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue { result.append(name) }
        }
        return result.sorted()
    }

    /// The folder's index as docs/recording.md tells a reader to take it: index.json (if there is one yet),
    /// then each line of index.jsonl (if a recorder is running or was killed) replacing the track with its
    /// session and id. One of the two must exist.
    func index() throws -> [String: Any] {
        let journal = FileManager.default.contents(atPath: out + "/index.jsonl")
        var index: [String: Any] = ["version": 1, "tracks": [[String: Any]]()]
        if let data = FileManager.default.contents(atPath: out + "/index.json") {
            index = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        } else {
            XCTAssertNotNil(journal, "neither index.json nor index.jsonl in \(out)")
        }
        guard let journal else { return index }
        var tracks = index["tracks"] as? [[String: Any]] ?? []
        for line in journal.split(separator: UInt8(ascii: "\n")) {
            guard let track = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            let same = { (other: [String: Any]) in
                other["session"] as? String == track["session"] as? String && other["id"] as? Int == track["id"] as? Int
            }
            if let at = tracks.lastIndex(where: same) { tracks[at] = track } else { tracks.append(track) }
        }
        index["tracks"] = tracks
        return index
    }
}

/// What gst-discoverer-1.0 says about a file.
struct Discovered {
    var ok: Bool
    var seconds: Double
    var text: String

    static func run(_ path: String) throws -> Discovered {
        let result = try runProcess("/usr/bin/env", ["gst-discoverer-1.0", "-v", path])
        let text = result.stdout + result.stderr
        var seconds = -1.0
        if let line = text.split(separator: "\n").first(where: { $0.contains("Duration:") }) {
            // "Duration: 0:00:04.023000000"
            let value = line.split(separator: " ").last.map(String.init) ?? ""
            let parts = value.split(separator: ":").compactMap { Double($0) }
            if parts.count == 3 { seconds = parts[0] * 3600 + parts[1] * 60 + parts[2] }
        }
        let ok = result.status == 0 && text.contains("Done discovering") && !text.contains("Analyzing URI timed out") && seconds > 0
        return Discovered(ok: ok, seconds: seconds, text: text)
    }
}

private final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private var outEnded = false
    private var errEnded = false
    /// Empty data is the end of that pipe.
    func append(stdout data: Data) { lock.lock(); out.append(data); outEnded = outEnded || data.isEmpty; lock.unlock() }
    func append(stderr data: Data) { lock.lock(); err.append(data); errEnded = errEnded || data.isEmpty; lock.unlock() }
    /// Until both pipes reached their ends (a process oton started may hold them a while: bounded).
    func waitForBothEnds(timeout: TimeInterval) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            lock.lock()
            let done = outEnded && errEnded
            lock.unlock()
            if done { return }
            usleep(20_000)
        }
    }
    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
}
