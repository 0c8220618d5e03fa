import Foundation
import OtonTestSupport
import XCTest

/// The light engine (what `oton record` uses for a stream it only records) against the project's
/// hostile server: ICY metadata every byte or never, junk, NULs and oversized blocks, a flood, a
/// slowloris, and an MP3 stream that begins with an ID3v2 tag. Each keeps memory bounded, writes
/// only inside the output folder, and ends promptly on SIGTERM.
final class LightEngineHostileTests: XCTestCase {
    struct Case {
        let path: String
        /// What the recorder must have written or said by the time it is stopped.
        let expectAudioFile: Bool
    }

    func testHostileICYStreamsKeepMemoryBoundedAndStopPromptly() async throws {
        let server = try HostileServer(self, maxSeconds: 240)
        let cases = [
            Case(path: "/icy?metaint=1&meta=title", expectAudioFile: false),  // a new title every byte: tracks too short to keep
            Case(path: "/icy?metaint=2147483647", expectAudioFile: true),
            Case(path: "/icy?metaint=512&meta=junk", expectAudioFile: true),
            Case(path: "/icy?metaint=512&meta=nul", expectAudioFile: true),
            Case(path: "/icy?metaint=1024&meta=huge", expectAudioFile: true),
            Case(path: "/icy?metaint=8192&rate=0", expectAudioFile: true),  // a flood: as fast as the socket takes it
        ]
        for entry in cases {
            let recorder = try RecordHarness(self, url: server.url(entry.path), extra: ["--engine", "light", "--partial", "keep"])
            try recorder.start()
            XCTAssertNotNil(recorder.waitForEvent("state", timeout: 20) { $0["state"] == "playing" }, "\(entry.path): \(recorder.stderr)")
            // Let it run a while, watching memory.
            var peakKB = 0
            for _ in 0..<16 {
                try await Task.sleep(nanoseconds: 250_000_000)
                peakKB = max(peakKB, ProcessMemory(pid: recorder.process.processIdentifier)?.residentKB ?? 0)
            }
            XCTAssertTrue(recorder.process.isRunning, "\(entry.path): still recording: \(recorder.stderr)")
            XCTAssertLessThan(peakKB, 200_000, "\(entry.path): resident memory stays bounded")
            let stopped = Date()
            recorder.process.terminate()
            let status = recorder.waitForExit(timeout: 10)
            XCTAssertEqual(status, 0, "\(entry.path): \(recorder.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(stopped), 5, "\(entry.path): SIGTERM ends it promptly")
            let files = recorder.files()
            if entry.expectAudioFile {
                XCTAssertTrue(files.contains { $0.hasSuffix(".mp3") }, "\(entry.path): \(files) \(recorder.stderr)")
            }
            XCTAssertFalse(files.contains { $0.hasSuffix(".bin") }, "\(entry.path): the stream was named MP3: \(files)")
            let out = URL(fileURLWithPath: recorder.out).standardizedFileURL.path
            for file in files {
                XCTAssertTrue(URL(fileURLWithPath: recorder.out + "/" + file).standardizedFileURL.path.hasPrefix(out), file)
            }
        }
    }

    /// A server that sends its headers, then one byte every 2 s: a stall, reconnected, and SIGTERM still ends it at once.
    func testASlowlorisStreamIsAStallAndSIGTERMEndsItAtOnce() async throws {
        let server = try HostileServer(self, maxSeconds: 120)
        let recorder = try RecordHarness(self, url: server.url("/icy-slow"), extra: ["--engine", "light"])
        try recorder.start()
        XCTAssertNotNil(recorder.waitForEvent("state", timeout: 60) { $0["state"] == "error" }, "the stall is noticed: \(recorder.stderr)")
        let stopped = Date()
        recorder.process.terminate()
        XCTAssertEqual(recorder.waitForExit(timeout: 10), 0, recorder.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 5)
    }

    /// An MP3 stream that begins with an ID3v2 tag (servers that loop files made by common tools):
    /// the tag is skipped, the audio is recorded as MP3, and --duration ends it on time.
    func testAnMP3StreamBehindAnID3TagIsRecordedForItsDuration() throws {
        let server = try HostileServer(self, maxSeconds: 120)
        let recorder = try RecordHarness(self, url: server.url("/id3-mp3"), extra: ["--engine", "light", "--duration", "6s", "--partial", "keep"])
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 40), 0, recorder.stderr)
        let files = recorder.files().filter { $0.hasSuffix(".mp3") }
        XCTAssertEqual(files.count, 1, "\(recorder.files()) \(recorder.stderr)")
        let finished = recorder.finishedEvents().compactMap { Double($0["seconds"] ?? "") }
        let seconds = try XCTUnwrap(finished.first, "\(recorder.events)")
        // An untitled stream is given the file sink's grace for a first title (5 s) past --duration.
        XCTAssertGreaterThanOrEqual(seconds, 5.9, "the file holds the audio asked for")
        XCTAssertLessThanOrEqual(seconds, 11.5, "and stops within the title grace")
        let bytes = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: recorder.out + "/" + files[0])[.size] as? Int)
        // 417-byte frames of 26.12 ms: 15,964 bytes a second. The 20 KB tag would add more than a second.
        XCTAssertEqual(Double(bytes), seconds * 15_964, accuracy: 8192, "the 20 KB tag was not recorded as audio")
    }

    /// Issue 39, N10: a gzip-encoded stream was recorded as nothing, silently (a false MPEG sync in the
    /// compressed bytes; state "playing", 0 files). It is refused, and the recorder says why.
    func testACompressedStreamIsRefusedSayingWhy() throws {
        let server = try HostileServer(self, maxSeconds: 60)
        let recorder = try RecordHarness(self, url: server.url("/gzip-mp3"), extra: ["--engine", "light", "--duration", "10s"])
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 40), 3, "not playable: \(recorder.stderr)")
        XCTAssertTrue(recorder.stderr.contains("Content-Encoding: gzip"), recorder.stderr)
        XCTAssertNil(recorder.waitForEvent("state", timeout: 0) { $0["state"] == "playing" }, "never 'playing'")
        XCTAssertEqual(recorder.files().filter { !$0.hasSuffix(".json") }, [], "nothing recorded")
    }

    /// Issue 39, N5: a station whose Ogg comment headers are 20 MB each cost the file sink many times
    /// that (133–174 MB peak with three such chains, 50 MB with ordinary comments; 320 MB with 64 MB
    /// ones). Comments over the host's bound are recorded as empty ones: memory stays near an ordinary
    /// stream's, the warning says so, and the files still play.
    func testHugeOggCommentHeadersAreBoundedInTheFileSink() async throws {
        let server = try HostileServer(self, maxSeconds: 240)
        let source = try vorbisFile(buffers: 430)  // 10 s
        let url = server.url("/ogg?path=\(source)&comment=20000000&chains=3&rate=4000000")
        let recorder = try RecordHarness(self, url: url, extra: ["--engine", "light", "--partial", "keep"])
        try recorder.start()
        var peakKB = 0
        let deadline = Date().addingTimeInterval(150)
        // Three chains of 10 s, each behind a 20 MB comment: the first two files end when the next chain begins.
        while Date() < deadline && recorder.process.isRunning && recorder.finishedEvents().count < 2 {
            peakKB = max(peakKB, ProcessMemory(pid: recorder.process.processIdentifier)?.peakKB ?? 0)
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        peakKB = max(peakKB, ProcessMemory(pid: recorder.process.processIdentifier)?.peakKB ?? 0)
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        let files = recorder.files().filter { $0.hasSuffix(".ogg") }
        XCTAssertGreaterThanOrEqual(files.count, 2, "two chains were recorded: \(recorder.files()) \(recorder.stderr)")
        XCTAssertLessThan(peakKB, 100_000, "peak resident memory stays near an ordinary stream's (50 MB), not 133–174 MB")
        XCTAssertTrue(recorder.stderr.contains("Ogg comment header larger than"), recorder.stderr)
        for file in files {
            let path = recorder.out + "/" + file
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            XCTAssertLessThan(size, 1_000_000, "\(file): no 20 MB comment in the file")
            let found = try Discovered.run(path)
            XCTAssertTrue(found.ok, "\(file) plays: \(found.text)")
            XCTAssertGreaterThan(found.seconds, 5, "\(file): \(found.text)")
        }
    }

    /// Issue 39, N1: an Ogg station starting a new chain every 5 KB, as fast as the socket takes it, made
    /// a track of every piece and an index entry of every dropped one (98,511 in 120 s; here 2,022
    /// entries, 692 KB, after 60 s). Dropped pieces now leave no entry once the journal is merged, the
    /// journal stays bounded while recording, and memory stays bounded (the sink's mailbox caps the backlog).
    func testAStationOfEndlessTinyChainsLeavesNoIndexEntryPerPieceAndBoundedMemory() async throws {
        let server = try HostileServer(self, maxSeconds: 240)
        let source = try vorbisFile(buffers: 8)  // 0.19 s, 4.8 KB
        let recorder = try RecordHarness(self, url: server.url("/ogg?path=\(source)&chains=0&rate=0"), extra: ["--engine", "light"])
        try recorder.start()
        var peakKB = 0
        var largestJournal = 0
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline && recorder.process.isRunning && recorder.finishedEvents().count < 500 {
            peakKB = max(peakKB, ProcessMemory(pid: recorder.process.processIdentifier)?.peakKB ?? 0)
            let journal = (try? FileManager.default.attributesOfItem(atPath: recorder.out + "/index.jsonl")[.size] as? Int) ?? 0
            largestJournal = max(largestJournal, journal)
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        let finished = recorder.finishedEvents()
        XCTAssertGreaterThanOrEqual(finished.count, 500, "a piece every few KB: \(recorder.stderr)")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        XCTAssertLessThan(peakKB, 250_000, "memory stays bounded")
        XCTAssertLessThan(largestJournal, 1 << 20, "the journal is merged as it grows")
        let data = try XCTUnwrap(FileManager.default.contents(atPath: recorder.out + "/index.json"))
        let index = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tracks = index["tracks"] as? [[String: Any]] ?? []
        XCTAssertFalse(tracks.contains { $0["status"] as? String == "dropped" }, "no entry for a dropped piece")
        XCTAssertLessThan(tracks.count, 10, "\(tracks.count) entries for \(finished.count) pieces")
        XCTAssertLessThan(data.count, 10_000)
    }

    /// An Ogg Vorbis file of `buffers` × 1024 samples of a test tone, for the hostile server's /ogg.
    private func vorbisFile(buffers: Int) throws -> String {
        let source = try TemporaryDirectory(self).file("source.ogg")
        let encoded = try runProcess(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "audiotestsrc", "num-buffers=\(buffers)", "samplesperbuffer=1024", "!", "audio/x-raw,rate=44100,channels=2", "!",
                "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(source)",
            ])
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        return source
    }
}
