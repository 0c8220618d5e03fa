import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record --archive 5s --upload s3://…` against a real Icecast fed by gst-launch-1.0 and a
/// real S3-compatible server on loopback (moto's server behind Tests/Fixtures/s3_server.py, which
/// checks every SigV4 signature against the secret and can fail PUTs or be down): every segment
/// and its ledger arrive exactly once with the bytes recorded, nothing local is removed before its
/// upload is confirmed, the recording goes on while the store fails, and a restart uploads what
/// the last run left in its journal.
final class ArchiveUploadTests: XCTestCase {
    private let bucket = "radio-archive"

    func testSegmentsAndLedgersArriveSignedWithTheirBytes() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/u.mp3", format: .mp3, initialTitle: "Artist U - One")
        let store = try S3Lab(self, bucket: bucket, sessionToken: "token-123")
        try store.waitUntilReady()
        let recorder = try RecordHarness(
            self, url: server.url(mount: "/u.mp3").absoluteString,
            extra: ["--archive", "5s", "--upload", "s3://\(bucket)/radio", "--upload-endpoint", store.endpoint],
            environment: store.credentials)
        try recorder.start()
        let uploaded = await poll(timeout: 90) { store.segmentKeys().count >= 3 }
        XCTAssertTrue(uploaded, "objects: \(store.objects().keys.sorted())\n\(recorder.stderr)")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)

        let objects = store.objects()
        let segments = try ArchiveSegments(recorder.out).segments
        XCTAssertGreaterThanOrEqual(segments.count, 3)
        var compared = 0
        for segment in segments {
            let relative = String(segment.path.dropFirst(recorder.out.count + 1))
            guard let object = objects["radio/" + relative] else { continue }  // the last, cut by SIGTERM, may wait for the next start
            XCTAssertEqual(object.puts, 1, relative)
            XCTAssertEqual(try store.bytes("radio/" + relative), segment.bytes, "\(relative): the object holds the recorded bytes")
            let ledgerKey = "radio/" + (relative as NSString).deletingPathExtension + ".jsonl"
            XCTAssertNotNil(objects[ledgerKey], "the ledger beside it: \(objects.keys.sorted())")
            let ledger = try String(decoding: store.bytes(ledgerKey), as: UTF8.self)
            XCTAssertTrue(ledger.contains(#""type":"end""#) || ledger.contains(#""type": "end""#), ledger)
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 3)
        XCTAssertTrue(recorder.stderr.contains("uploaded ") || recorder.events.contains { "\($0)".contains("uploaded") } || compared >= 3)
        XCTAssertFalse(recorder.stderr.contains(store.secret), "the secret is never logged")
        XCTAssertFalse(recorder.stdout.contains(store.secret))
        XCTAssertTrue(store.log.isEmpty || !store.log.contains("403"), "every request was signed right: \(store.log)")
    }

    func testAFlakyStoreGetsEverySegmentOnceAndNothingIsDeletedBeforeItsUploadIsConfirmed() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/f.mp3", format: .mp3, initialTitle: "Artist F - One")
        let store = try S3Lab(self, bucket: bucket, failEvery: 2)
        try store.waitUntilReady()
        let recorder = try RecordHarness(
            self, url: server.url(mount: "/f.mp3").absoluteString,
            extra: ["--archive", "5s", "--upload", "s3://\(bucket)", "--upload-endpoint", store.endpoint, "--upload-delete"],
            environment: store.credentials)
        try recorder.start()
        // While it runs: every finished segment is on the disk or in the store, never neither.
        var lost: [String] = []
        let enough = await poll(timeout: 120) {
            let finished = recorder.finishedEvents().filter { $0["status"] == "archive" }.compactMap { $0["path"] }
            let keys = Set(store.objects().keys)
            for path in finished {
                let relative = String(path.dropFirst(recorder.out.count + 1))
                if !FileManager.default.fileExists(atPath: path) && !keys.contains(relative) { lost.append(relative) }
            }
            return store.segmentKeys().count >= 4 && finished.count >= 5
        }
        XCTAssertTrue(enough, "objects: \(store.objects().keys.sorted())\n\(recorder.stderr)")
        XCTAssertEqual(lost, [], "removed locally before the store had it")
        XCTAssertTrue(recorder.stderr.contains("HTTP 500"), "the failures were met and retried: \(recorder.stderr)")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)

        // What SIGTERM left goes at the next start; then every segment is in the store exactly once, and gone locally.
        let finished = recorder.finishedEvents().filter { $0["status"] == "archive" }
        // The next start comes at once, inside the window of the segment SIGTERM ended: its first segment gets a name of its own.
        let again = try RecordHarness(
            self, url: server.url(mount: "/f.mp3").absoluteString,
            extra: [
                "--archive", "5s", "--upload", "s3://\(bucket)", "--upload-endpoint", store.endpoint, "--upload-delete",
            ], out: recorder.out, environment: store.credentials)
        try again.start()
        let all = await poll(timeout: 90) {
            let keys = Set(store.objects().keys)
            return finished.allSatisfy { event in
                let path = event["path"] ?? ""
                let relative = String(path.dropFirst(recorder.out.count + 1))
                return keys.contains(relative) && keys.contains((relative as NSString).deletingPathExtension + ".jsonl")
                    && !FileManager.default.fileExists(atPath: path)
            }
        }
        again.stop()
        let objects = store.objects()
        XCTAssertTrue(all, "missing: \(finished.compactMap { $0["path"] }.filter { objects[String($0.dropFirst(recorder.out.count + 1))] == nil })")
        for event in finished {
            let path = event["path"] ?? ""
            let relative = String(path.dropFirst(recorder.out.count + 1))
            XCTAssertEqual(objects[relative]?.puts, 1, "\(relative) arrived once")
            XCTAssertEqual(objects[relative]?.size, Int(event["bytes"] ?? ""), relative)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(relative): removed once confirmed (--upload-delete)")
            XCTAssertNotNil(objects[(relative as NSString).deletingPathExtension + ".jsonl"], "its ledger too")
        }
    }

    /// A name is never given twice, though --upload-delete frees it locally: every segment of an hour
    /// is named alike here ({hh}, no {start}), so without the record of names given the third segment took
    /// the first one's name (uploaded and removed by then) and replaced its object; and a recorder restarted
    /// inside the window of the segment SIGTERM ended gets a name of its own. Each object holds the bytes
    /// its segment was written with (the test keeps a hard link to every `.part` while it is written).
    func testARestartInsideTheWindowWithUploadDeleteNeverReplacesAnObject() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/n.mp3", format: .mp3, initialTitle: "Artist N - One")
        let store = try S3Lab(self, bucket: bucket)
        try store.waitUntilReady()
        let extra = [
            "--archive", "5s", "--archive-template", "{yyyy}/{mm}/{dd}/{hh}.{ext}", "--upload", "s3://\(bucket)", "--upload-endpoint",
            store.endpoint, "--upload-delete",
        ]
        let kept = try TemporaryDirectory(self)
        let out = kept.file("out")
        let keeper = PartKeeper(root: out, into: kept.file("links"))
        defer { keeper.stop() }
        let first = try RecordHarness(self, url: server.url(mount: "/n.mp3").absoluteString, extra: extra, out: out, environment: store.credentials)
        try first.start()
        let uploadedThree = await poll(timeout: 120) {
            first.finishedEvents().filter { $0["status"] == "archive" }.count >= 3
                && store.segmentKeys().count >= 3
        }
        XCTAssertTrue(uploadedThree, "objects: \(store.objects().keys.sorted())\n\(first.stderr)")
        XCTAssertEqual(first.stop(), 0, first.stderr)
        // At once: inside the window of the segment SIGTERM ended.
        let second = try RecordHarness(self, url: server.url(mount: "/n.mp3").absoluteString, extra: extra, out: first.out, environment: store.credentials)
        try second.start()
        let recordedTwo = await poll(timeout: 90) {
            second.finishedEvents().filter { $0["status"] == "archive" }.count >= 2
        }
        XCTAssertTrue(recordedTwo, second.stderr)
        XCTAssertEqual(second.stop(), 0, second.stderr)

        keeper.stop()
        let events = (first.finishedEvents() + second.finishedEvents()).filter { $0["status"] == "archive" }
        let finished = events.compactMap { $0["path"] }
        XCTAssertEqual(Set(finished).count, finished.count, "a name given twice: \(finished)")
        let last = second.finishedEvents().filter { $0["status"] == "archive" }.last?["path"]
        // Everything but what the second SIGTERM left (it may wait in the journal for the next start) is in the store.
        let arrived = await poll(timeout: 60, every: 0.5) {
            let keys = Set(store.objects().keys)
            return finished.allSatisfy { $0 == last || keys.contains(String($0.dropFirst(first.out.count + 1))) }
        }
        XCTAssertTrue(arrived, "objects: \(store.objects().keys.sorted())\nfinished: \(finished)")
        let objects = store.objects()
        var compared = 0
        for path in finished {
            let key = String(path.dropFirst(first.out.count + 1))
            guard let object = objects[key] else {
                XCTAssertEqual(path, last, "\(key) is neither in the store nor the last segment")
                XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(key): not uploaded, so kept")
                continue
            }
            XCTAssertEqual(object.puts, 1, "\(key) was written once")
            XCTAssertEqual(object.size, Int(events.first { $0["path"] == path }?["bytes"] ?? ""), "\(key): the size recorded")
            // A segment of a few frames (the first of a run may end at a boundary just after it began) can come and go between two looks.
            guard let link = keeper.link(of: path) else { continue }
            XCTAssertEqual(try store.bytes(key), [UInt8](FileManager.default.contents(atPath: link) ?? Data()), "\(key) holds its own bytes")
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 4, "segments compared byte for byte")
    }

    func testAStoreThatIsDownLeavesAJournalThatTheNextStartUploads() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/d.mp3", format: .mp3, initialTitle: "Artist D - One")
        // The store refuses connections for its first 20 s (the issue's two minutes, shortened).
        let store = try S3Lab(self, bucket: bucket, downSeconds: 20)
        let recorder = try RecordHarness(
            self, url: server.url(mount: "/d.mp3").absoluteString,
            extra: ["--archive", "5s", "--upload", "s3://\(bucket)/d", "--upload-endpoint", store.endpoint, "--keep-size", "1K"],
            environment: store.credentials)
        try recorder.start()
        // The recording goes on while the store is away; the retention (1 KiB!) keeps every segment not uploaded.
        let recorded = await poll(timeout: 60) { recorder.finishedEvents().filter { $0["status"] == "archive" }.count >= 2 }
        XCTAssertTrue(recorded, recorder.stderr)
        XCTAssertFalse(store.isReady, "the store is still down")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        let finished = recorder.finishedEvents().filter { $0["status"] == "archive" }.compactMap { $0["path"] }
        for path in finished { XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(path) kept until uploaded") }
        let journal = (try? FileManager.default.contentsOfDirectory(atPath: recorder.out + "/.upload-queue")) ?? []
        XCTAssertEqual(journal.count, finished.count, "one journal entry per segment waiting: \(journal)")
        XCTAssertTrue(recorder.stderr.contains("Connection refused") || recorder.stderr.contains("connect"), recorder.stderr)

        // The next start, with the store back, uploads the journal (and records on).
        try store.waitUntilReady(timeout: 60)
        let again = try RecordHarness(
            self, url: server.url(mount: "/d.mp3").absoluteString,
            extra: [
                "--archive", "5s", "--upload", "s3://\(bucket)/d", "--upload-endpoint", store.endpoint, "--keep-size", "1K",
            ], out: recorder.out, environment: store.credentials)
        try again.start()
        let arrived = await poll(timeout: 90) {
            let keys = Set(store.objects().keys)
            return finished.allSatisfy { path in
                let relative = "d/" + String(path.dropFirst(recorder.out.count + 1))
                return keys.contains(relative) && keys.contains((relative as NSString).deletingPathExtension + ".jsonl")
            }
        }
        XCTAssertTrue(arrived, "objects: \(store.objects().keys.sorted())\n\(again.stderr)")
        again.stop()
        let objects = store.objects()
        for path in finished {
            let relative = String(path.dropFirst(recorder.out.count + 1))
            XCTAssertEqual(objects["d/" + relative]?.puts, 1, relative)
            // Uploaded, so the retention may now remove it; if it is still here, it is the same bytes.
            if let local = FileManager.default.contents(atPath: path) {
                XCTAssertEqual(try store.bytes("d/" + relative), [UInt8](local), relative)
            }
        }
    }

    private func poll(timeout: TimeInterval, every interval: TimeInterval = 0.5, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
        }
        return condition()
    }
}

/// Keeps a hard link to every `.mp3.part` under `root` (looked for every 20 ms on a thread of its
/// own), so a test can read a segment's bytes after `--upload-delete` removed it: the link is the
/// same inode, which the recorder writes to the end and then renames.
final class PartKeeper: @unchecked Sendable {
    private let lock = NSLock()
    private var links: [String: String] = [:]
    private var stopped = false
    private let thread: Thread

    init(root: String, into folder: String) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let state = Box()
        thread = Thread {
            while true {
                state.keeper?.lock.lock()
                let done = state.keeper?.stopped ?? true
                state.keeper?.lock.unlock()
                if done { return }
                if let walker = FileManager.default.enumerator(atPath: root) {
                    while let relative = walker.nextObject() as? String {
                        guard relative.hasSuffix(".mp3.part"), let keeper = state.keeper else { continue }
                        let segment = root + "/" + String(relative.dropLast(".part".count))
                        keeper.lock.lock()
                        let known = keeper.links[segment] != nil
                        let link = folder + "/\(keeper.links.count).mp3"
                        keeper.lock.unlock()
                        if !known, Glibc.link(root + "/" + relative, link) == 0 {
                            keeper.lock.lock(); keeper.links[segment] = link; keeper.lock.unlock()
                        }
                    }
                }
                usleep(20_000)
            }
        }
        state.keeper = self
        thread.start()
    }

    private final class Box: @unchecked Sendable { weak var keeper: PartKeeper? }

    func link(of segment: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        return links[segment]
    }

    func stop() {
        lock.lock(); stopped = true; lock.unlock()
    }
}

/// Tests/Fixtures/s3_server.py: moto's S3 behind a front that checks signatures, can fail PUTs or be down.
final class S3Lab: @unchecked Sendable {
    let port: UInt16
    let bucket: String
    let accessKey = "AKIAOTONTEST"
    let secret = "oton-secret-\(UInt32.random(in: 100_000 ... 999_999))"
    let sessionToken: String?
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private let lock = NSLock()
    private var stdoutText = ""
    private var stderrText = ""

    init(_ testCase: XCTestCase, bucket: String, sessionToken: String? = nil, failEvery: Int = 0, downSeconds: Double = 0) throws {
        guard (try? runProcess("/usr/bin/env", ["python3", "-c", "import moto.server"]))?.status == 0 else {
            throw XCTSkip("moto is not installed (scripts/bootstrap installs it)")
        }
        port = try FreePort.allocate()
        self.bucket = bucket
        self.sessionToken = sessionToken
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", TestPaths.root + "/Tests/Fixtures/s3_server.py", "--port", String(port), "--bucket", bucket,
                "--access-key", accessKey, "--secret", secret, "--fail-every", String(failEvery), "--down-seconds", String(downSeconds),
            ]
            + (sessionToken.map { ["--session-token", $0] } ?? [])
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            guard let self else { return }
            self.lock.lock(); self.stdoutText += text; self.lock.unlock()
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            guard let self else { return }
            self.lock.lock(); self.stderrText += text; self.lock.unlock()
        }
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    var credentials: [String: String] {
        var environment = ["AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "eu-west-1"]
        if let sessionToken { environment["AWS_SESSION_TOKEN"] = sessionToken }
        return environment
    }

    var isReady: Bool { lock.lock(); defer { lock.unlock() }; return stdoutText.contains("READY") }
    var log: String { lock.lock(); defer { lock.unlock() }; return stderrText }

    func waitUntilReady(timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !isReady {
            guard process.isRunning, Date() < deadline else { throw FixtureError("s3_server.py did not start: \(log)") }
            usleep(100_000)
        }
    }

    struct Object { var size: Int; var puts: Int }

    /// Every object in the bucket, with how many PUTs of it reached the store.
    func objects() -> [String: Object] {
        guard isReady, let result = try? runProcess("/usr/bin/env", ["curl", "-s", "--max-time", "20", endpoint + "/__oton/objects"]),
            let value = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: Int]]
        else { return [:] }
        return value.mapValues { Object(size: $0["size"] ?? -1, puts: $0["puts"] ?? 0) }
    }

    func segmentKeys() -> [String] { objects().keys.filter { $0.hasSuffix(".mp3") } }

    func bytes(_ key: String) throws -> [UInt8] {
        let url =
            endpoint + "/__oton/object/"
            + key.split(separator: "/").map {
                String($0).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "+&="))) ?? String($0)
            }.joined(separator: "/")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "--fail", "--max-time", "30", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("cannot read \(key) from the store") }
        return [UInt8](data)
    }
}
