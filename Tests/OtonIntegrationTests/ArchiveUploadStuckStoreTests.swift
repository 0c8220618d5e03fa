import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record --archive 3s --upload …` against a store that holds one request (Tests/Fixtures/
/// s3_stuck_server.py): the HEAD that checks the first segment gets no answer, or an answer that
/// trickles without end. The other segments are uploaded meanwhile, and the stuck request fails
/// within its limits (shortened with OTON_TEST_UPLOAD_TIMEOUT) with a log line that names the
/// segment, the store's host and the reason.
final class ArchiveUploadStuckStoreTests: XCTestCase {
    func testAHeadWithoutAnAnswerFailsInTimeAndHoldsNoOtherUpload() async throws {
        try await check(mode: "silent", timeout: 3, reason: "no answer within 3 s of the request")
    }

    func testAnAnswerThatTricklesFailsInTimeAndHoldsNoOtherUpload() async throws {
        try await check(mode: "trickle", timeout: 3, reason: "the answer took longer than 6 s")
    }

    /// With limits longer than the test, the stuck request stays stuck: the others go beside it.
    func testOneStuckRequestDoesNotHoldTheOthers() async throws {
        try await check(mode: "silent", timeout: 3600, reason: nil)
    }

    private func check(mode: String, timeout: Int, reason: String?) async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/s.mp3", format: .mp3, initialTitle: "Artist S - One")
        let store = try StuckStore(self, mode: mode)
        let recorder = try RecordHarness(
            self, url: server.url(mount: "/s.mp3").absoluteString,
            extra: ["--archive", "3s", "--upload", "s3://radio/r", "--upload-endpoint", store.endpoint],
            environment: [
                "AWS_ACCESS_KEY_ID": "AKIAOTONTEST", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "eu-west-1",
                "OTON_TEST_UPLOAD_TIMEOUT": String(timeout),
            ])
        try recorder.start()
        // Three segments besides the held one are stored and checked (their HEAD answered).
        let others = await poll(timeout: 120) {
            let state = store.state()
            return state.stuck != nil && state.checked.filter { $0 != state.stuck && $0.hasSuffix(".mp3") }.count >= 3
        }
        let state = store.state()
        XCTAssertTrue(others, "checked: \(state.checked), held: \(state.stuck ?? "none")\n\(recorder.stderr)")
        if let reason, let held = state.stuck {
            let relative = String(held.dropFirst("r/".count))
            let logged = await poll(timeout: 60) {
                recorder.stderr.split(separator: "\n").contains {
                    $0.contains("upload of \(relative)") && $0.contains("127.0.0.1:\(store.port)") && $0.contains(reason)
                }
            }
            XCTAssertTrue(logged, "the failure of \(relative) is logged with the host and \(reason):\n\(recorder.stderr)")
        }
        recorder.stop()
    }

    private func poll(timeout: TimeInterval, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 500_000_000)
        }
        return condition()
    }
}

/// Tests/Fixtures/s3_stuck_server.py on a free port.
final class StuckStore: @unchecked Sendable {
    let port: UInt16
    private let process = Process()
    private let output = Pipe()

    init(_ testCase: XCTestCase, mode: String) throws {
        port = try FreePort.allocate()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestPaths.root + "/Tests/Fixtures/s3_stuck_server.py", "--port", String(port), "--mode", mode]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        // "READY" once it listens (bounded: the line or the end of its output).
        let ready = DispatchSemaphore(value: 0)
        let handle = output.fileHandleForReading
        DispatchQueue.global().async {
            var text = ""
            while !text.contains("READY") {
                let data = handle.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            ready.signal()
        }
        guard ready.wait(timeout: .now() + 30) == .success, process.isRunning else { throw FixtureError("s3_stuck_server.py did not start") }
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The keys whose HEAD was answered in full, and the key held.
    func state() -> (checked: [String], stuck: String?) {
        guard let result = try? runProcess("/usr/bin/env", ["curl", "-s", "--max-time", "20", endpoint + "/__oton/objects"]),
            let value = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let objects = value["objects"] as? [String: [String: Int]]
        else { return ([], nil) }
        return (objects.filter { ($0.value["heads"] ?? 0) > 0 }.keys.sorted(), value["stuck"] as? String)
    }
}
