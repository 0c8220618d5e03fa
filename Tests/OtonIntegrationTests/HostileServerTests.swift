import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// oton against a hostile server on loopback (Tests/Fixtures/hostile_server.py):
/// status APIs that flood, bomb, nest or stall; stations that send nothing or
/// redirect in loops or to other schemes; addresses that cannot play at all.
/// Each case: a clear message, bounded memory and time, and playback (or the
/// process) going on or ending as it should.
final class HostileServerTests: XCTestCase {
    private static let emptyConfig = #"{"stations": [], "plugins": []}"#

    private func config(_ directory: TemporaryDirectory, _ text: String = emptyConfig) throws -> String {
        try directory.write("plugins.json", text)
    }

    private static func oton(_ arguments: [String], config: String) throws -> (result: ProcessResult, seconds: Double) {
        let started = Date()
        let result = try runProcess(TestPaths.oton, arguments + ["--config", config])
        return (result, Date().timeIntervalSince(started))
    }

    // MARK: the station-status API

    func testStatusBodiesThatFloodBombOrNestAreRefusedWithinTheLimits() throws {
        let server = try HostileServer(self)
        let before = ProcessMemory(pid: getpid())
        let cases: [(path: String, expect: String)] = [
            ("/endless-json", "larger than 1048576 bytes"),
            ("/gzip-bomb", "larger than 1048576 bytes"),
            ("/big-json", "larger than 1048576 bytes"),
            ("/deep-json", "unexpected body"),
            ("/silent", "no complete answer within 10.0 s"),
            ("/status/503", "HTTP 503"),
            ("/redirect-loop", "more than 5 redirects"),
            ("/redirect-file", "only http and https"),
        ]
        let results = LockedResults<(Result<StationStatus, StationStatusPollError>, Double)>(count: cases.count)
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            let poller = StationStatusPoller(statusURL: URL(string: server.url(cases[index].path))!, streamURL: nil)
            let started = Date()
            let outcome = poller.fetch()
            results.set(index, (outcome, Date().timeIntervalSince(started)))
        }
        for (index, item) in cases.enumerated() {
            let (outcome, seconds) = try XCTUnwrap(results.get(index))
            guard case let .failure(error) = outcome else { return XCTFail("\(item.path) was accepted") }
            XCTAssertTrue("\(error)".contains(item.expect), "\(item.path): \(error)")
            XCTAssertLessThan(seconds, 20, "\(item.path): the 10 s total limit ends the transfer")
        }
        if let before, let after = ProcessMemory(pid: getpid()) {
            XCTAssertLessThan(after.residentKB - before.residentKB, 100_000, "the 1 GiB bomb and the endless body stay capped")
        }
    }

    func testOtonKeepsPlayingBesideAnEndlessStatusBodyWithBoundedMemoryAndStopsAtOnce() throws {
        let server = try HostileServer(self)
        let directory = try TemporaryDirectory(self)
        let audio = directory.file("tone.mp3")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=3000", "!", "audioconvert", "!",
                    "lamemp3enc", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let config = try config(
            directory,
            """
            {"stations": [{"name": "Hostile", "url": "file://\(audio)", "status_url": "\(server.url("/endless-json"))"}], "plugins": []}
            """)
        let events = directory.file("events.jsonl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["play", "Hostile", "--headless", "--no-tui", "--config", config, "--events", events]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache"),
            "XDG_RUNTIME_DIR": directory.file("run"),
        ]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let deadline = Date().addingTimeInterval(20)
        while server.requests("/endless-json") == 0 && Date() < deadline { usleep(50_000) }
        XCTAssertGreaterThan(server.requests("/endless-json"), 0, "oton asked the status API")
        // The endless body streams as fast as loopback allows; the cap ends it within a second.
        Thread.sleep(forTimeInterval: 2)  // nothing to await: this measures memory while it would grow
        let memory = try XCTUnwrap(ProcessMemory(pid: process.processIdentifier))
        XCTAssertLessThan(memory.peakKB, 200_000, "peak RSS \(memory.peakKB) kB")
        XCTAssertTrue(process.isRunning)
        XCTAssertTrue(directory.read("events.jsonl").contains(#""state":"playing""#), "still playing")
        let stopping = Date()
        process.terminate()
        process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 2, "SIGTERM ends oton within 2 s")
        XCTAssertEqual(process.terminationStatus, 0)
        for line in directory.lines("events.jsonl") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), line)
        }
    }

    // MARK: stations that misbehave

    func testAServerThatSendsNothingIsReportedAsSuchAndSIGTERMStillEndsOtonAtOnce() throws {
        let server = try HostileServer(self)
        let directory = try TemporaryDirectory(self)
        let config = try config(directory)
        // A second oton on the same silent server is stopped while it waits.
        let waiting = Process()
        waiting.executableURL = URL(fileURLWithPath: TestPaths.oton)
        waiting.arguments = ["play", server.url("/silent"), "--headless", "--no-tui", "--retries", "0", "--config", config]
        waiting.standardOutput = FileHandle.nullDevice
        waiting.standardError = FileHandle.nullDevice
        try waiting.run()
        addTeardownBlock { if waiting.isRunning { kill(waiting.processIdentifier, SIGKILL); waiting.waitUntilExit() } }

        let finished = LockedResults<(result: ProcessResult, seconds: Double)>(count: 1)
        let thread = Thread {
            finished.set(0, try? HostileServerTests.oton(["play", server.url("/silent"), "--headless", "--no-tui", "--retries", "0"], config: config))
        }
        thread.start()
        let deadline = Date().addingTimeInterval(10)
        while server.requests("/silent") < 2 && Date() < deadline { usleep(50_000) }
        XCTAssertGreaterThanOrEqual(server.requests("/silent"), 2, "both connected")
        let stopping = Date()
        waiting.terminate()
        waiting.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 2, "SIGTERM while connecting ends oton within 2 s")

        let until = Date().addingTimeInterval(40)
        while finished.get(0) == nil && Date() < until { usleep(100_000) }
        let (result, seconds) = try XCTUnwrap(finished.get(0), "oton gave up on the silent server")
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("accepted the connection but sent nothing for 15 s"), result.stderr)
        XCTAssertFalse(result.stderr.contains("couldn't be decoded"), result.stderr)
        XCTAssertLessThan(seconds, 25)
    }

    func testRedirectLoopsAndRedirectsToOtherSchemesAreNamed() throws {
        let server = try HostileServer(self)
        let directory = try TemporaryDirectory(self)
        let config = try config(directory)
        let cases = [("/redirect-loop", "redirects in a loop"), ("/redirect-ftp", "does not follow"), ("/redirect-file", "does not follow")]
        let results = LockedResults<(result: ProcessResult, seconds: Double)>(count: cases.count)
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            results.set(index, try? HostileServerTests.oton(["play", server.url(cases[index].0), "--headless", "--no-tui", "--retries", "3"], config: config))
        }
        for (index, item) in cases.enumerated() {
            let (result, seconds) = try XCTUnwrap(results.get(index))
            XCTAssertEqual(result.status, 3, "\(item.0): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(item.1), "\(item.0): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("reconnecting to "), "\(item.0): a misconfigured server is not retried\n\(result.stderr)")
            XCTAssertLessThan(seconds, 25, item.0)
        }
        XCTAssertLessThanOrEqual(server.requests("/redirect-ftp"), 3, "the resolver's look, GStreamer's attempt and the diagnosis; no retries")
    }

    func testAddressesThatCannotPlayAreUsageErrorsAtOnce() throws {
        let directory = try TemporaryDirectory(self)
        let config = try config(directory)
        let cases = [
            ("ftp://127.0.0.1/x.mp3", "unsupported address scheme \"ftp:\""),
            ("javascript:alert(1)", "unsupported address scheme \"javascript:\""),
            ("file:///nonexistent/missing.mp3", "no such file: /nonexistent/missing.mp3"),
            ("/nonexistent/missing.mp3", "no such file: /nonexistent/missing.mp3"),
            ("./missing.mp3", "no such file: ./missing.mp3"),
            ("No Such Station", "no station named \"No Such Station\""),
        ]
        for (argument, expected) in cases {
            let (result, seconds) = try Self.oton(["play", argument, "--headless", "--no-tui"], config: config)
            XCTAssertEqual(result.status, 2, "\(argument): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "\(argument): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("HTTP"), "\(argument): \(result.stderr)")
            XCTAssertLessThan(seconds, 5, argument)
        }
    }

    // MARK: playing means audio flows

    func testPlayingWithoutAudioIsAStallAndReconnects() throws {
        let directory = try TemporaryDirectory(self)
        let audio = directory.file("tone.mp3")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=100", "!", "audioconvert", "!",
                    "lamemp3enc", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let fifo = directory.file("stream.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: audio))
        XCTAssertLessThan(bytes.count, 60_000, "fits in the pipe's buffer")
        // The writer end, opened read-write so that neither end blocks in open(): 2 s of audio
        // waits in the pipe, then nothing more comes, and the pipe stays open (the reader blocks).
        let writer = open(fifo, O_RDWR)
        XCTAssertGreaterThanOrEqual(writer, 0)
        defer { close(writer) }
        XCTAssertEqual(bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }, bytes.count)
        let harness = PlayerHarness(url: fifo, stallTimeout: .seconds(3))
        harness.start()
        defer { harness.stop() }
        let playing = try XCTUnwrap(harness.waitForState("playing", timeout: 30))
        let stalled = try XCTUnwrap(
            harness.waitForState("error", timeout: 20) { $0.field("error_kind") == "stalled" },
            "no audio for 3 s in playing is a failure")
        let seconds = Double(stalled.monotonicNanoseconds - playing.monotonicNanoseconds) / 1e9
        XCTAssertGreaterThanOrEqual(seconds, 3, "not before the stall timeout")
        XCTAssertTrue(stalled.field("error_message")?.contains("No audio arrived for 3 s") == true, stalled.field("error_message") ?? "")
    }
}

/// Results written from several threads, read after they finish.
final class LockedResults<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [T?]

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: T?) {
        lock.lock(); values[index] = value; lock.unlock()
    }

    func get(_ index: Int) -> T? {
        lock.lock(); defer { lock.unlock() }
        return values[index]
    }
}
