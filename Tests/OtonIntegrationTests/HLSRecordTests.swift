import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record` on the URLs stations publish: a live HLS playlist (per-track ADTS AAC
/// files cut at the timed ID3 titles) and a PLS playlist in front of an Icecast stream.
final class HLSRecordTests: XCTestCase {
    func testRecordingHLSWritesAPlayableAACFilePerTrack() async throws {
        let station = try HLSStation(self)
        let harness = try RecordHarness(self, url: station.url("/live.m3u8"))
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 20) { $0["title"] == "Song One" }, harness.stderr)
        try station.setTitle(artist: "Artist B", title: "Song Two")
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 20) { $0["title"] == "Song Two" }, harness.stderr)
        // Song Two is recorded from its first segment; a third title completes it.
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try station.setTitle(artist: "Artist C", title: "Song Three")
        XCTAssertNotNil(
            harness.waitForEvent("org.oton.recording.finished", timeout: 20) { $0["path"]?.hasSuffix("Artist B - Song Two.aac") == true },
            "\(harness.finishedEvents())\n\(harness.stdout)")
        XCTAssertEqual(harness.stop(), 0, harness.stderr)

        let files = harness.files()
        let complete = try XCTUnwrap(
            files.first { $0.hasSuffix("Artist B - Song Two.aac") && !$0.contains("/incomplete/") },
            "Song Two is a complete file: \(files)\n\(harness.stdout)")
        let discovered = try Discovered.run(harness.out + "/" + complete)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertTrue(discovered.text.contains("MPEG-4 AAC"), discovered.text)
        XCTAssertGreaterThan(discovered.seconds, 2, discovered.text)
        let head = try XCTUnwrap(FileHandle(forReadingAtPath: harness.out + "/" + complete)?.readData(ofLength: 2))
        XCTAssertEqual(Array(head), [0xFF, 0xF1], "the file starts on an ADTS frame, not on ID3 or MPEG-TS")
        XCTAssertTrue(files.contains { $0.hasSuffix("Artist A - Song One.aac") }, "the first track, begun before the recording: \(files)")
    }

    /// Issue 39 §3: a variant switch (the master lists the low variant first; hlsdemux switches up
    /// after a segment) and an `#EXT-X-DISCONTINUITY` every 6 s (an ad break's shape) with the same
    /// codec parameters: one file of every second. Before, each marked its first buffer DISCONT,
    /// which the recording took for lost bytes and cut a new file: with `--min-seconds 0` 15 s came
    /// out as 1 + 14 s (the switch) or 2 + 10 + 3 s (the breaks), and the default minimum dropped the short pieces.
    func testRecordingKeepsEverySecondAcrossAVariantSwitchAndDiscontinuities() throws {
        let station = try HLSStation(self, options: ["--pool-seconds", "6"])
        let run = try OtonRun(self, ["record", station.url("/master-low-first.m3u8"), "--out", "{out}", "--min-seconds", "0", "--duration", "15s"])
        XCTAssertTrue(run.wait(timeout: 120) { !run.process.isRunning }.met, "--duration 15s ended the recording\n\(run.stderr)")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        XCTAssertTrue(
            station.requests.contains { $0.hasPrefix("/low/seg/") } && station.requests.contains { $0.hasPrefix("/high/seg/") },
            "both variants were fetched (a switch happened): \(station.requests)")
        let files = run.outputFiles().filter { $0.hasSuffix(".aac") }
        XCTAssertEqual(files.count, 1, "one file across the switch and the discontinuities: \(files)\n\(run.stderr)")
        let path = try XCTUnwrap(files.first.map { run.out + "/" + $0 })
        let discovered = try Discovered.run(path)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertGreaterThan(discovered.seconds, 14, "every second of the 15 s: \(discovered.text)")
    }

    /// Issue 39 §3: a discontinuity after which the codec parameters change (the "ad" is at 22.05 kHz)
    /// begins a new file, so that no file mixes two sample rates, and nothing is lost on either side.
    func testADiscontinuityThatChangesTheSampleRateBeginsANewFile() throws {
        let station = try HLSStation(self, options: ["--pool-seconds", "6", "--ad-rate", "22050"])
        let run = try OtonRun(self, ["record", station.url("/live.m3u8"), "--out", "{out}", "--min-seconds", "0", "--duration", "15s"])
        XCTAssertTrue(run.wait(timeout: 120) { !run.process.isRunning }.met, "--duration 15s ended the recording\n\(run.stderr)")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        let files = run.outputFiles().filter { $0.hasSuffix(".aac") }
        let discovered = try files.map { try Discovered.run(run.out + "/" + $0) }
        let rates = discovered.map { item in ["44100", "22050"].filter { item.text.contains("Sample rate: \($0)") } }
        XCTAssertTrue(rates.allSatisfy { $0.count == 1 }, "each file has one sample rate: \(rates)\n\(files)")
        XCTAssertTrue(rates.contains(["22050"]) && rates.contains(["44100"]), "files at both rates: \(rates)\n\(files)\n\(run.stderr)")
        XCTAssertGreaterThan(discovered.map(\.seconds).reduce(0, +), 14, "every second of the 15 s: \(discovered.map(\.seconds))")
    }

    func testRecordingAPlaylistURLRecordsItsStream() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/pls.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let http = try LocalHTTPServer.start()
        defer { http.stop() }
        let dead = "http://127.0.0.1:\(try FreePort.allocate())/stream"
        let body = "[playlist]\nFile1=\(dead)\nFile2=\(server.url(mount: "/pls.mp3").absoluteString)\n"
        http.setRoute("/listen.pls", CannedResponse(headers: ["Content-Type": "audio/x-scpls"], body: Data(body.utf8)))
        let harness = try RecordHarness(self, url: http.url("/listen.pls").absoluteString, extra: ["--duration", "3s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 30), 0, harness.stderr)
        let files = harness.files()
        let recorded = try XCTUnwrap(files.first { $0.hasSuffix("Artist A - Song One.mp3") }, "\(files)\n\(harness.stderr)")
        XCTAssertTrue(try Discovered.run(harness.out + "/" + recorded).ok)
    }
}
