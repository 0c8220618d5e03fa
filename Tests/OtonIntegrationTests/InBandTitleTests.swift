import Foundation
import OtonTestSupport
import XCTest

/// Issue 52: the titles fMP4 HLS and DASH carry in-band, which GStreamer 1.22 reads but drops (qtdemux
/// skips `emsg` boxes, dashdemux reads no EventStream): timed ID3 in `emsg` boxes of both versions and
/// an MPD's EventStream, each against a loopback station of Tests/Fixtures/hls_server.py (ffmpeg's own
/// segments and manifests; the fixture adds the boxes and events) and the real `oton` binary. ffmpeg's
/// playlists carry no `#EXTINF` titles, so every title seen here came from the boxes or the events.
final class InBandTitleTests: XCTestCase {
    /// fMP4 HLS with Apple's emsg-ID3 scheme in version 0 boxes: the title shows, and a new one follows.
    func testFMP4HLSTitlesFromVersion0EmsgBoxesShowAndFollowAChange() throws {
        let station = try HLSStation(self, shape: .fmp4, options: ["--emsg", "0"])
        try assertTitlesFollow(station, url: station.url("/live.m3u8"))
    }

    /// Live DASH with AOM's ID3 scheme in version 1 boxes: the title shows, and a new one follows.
    func testDASHTitlesFromVersion1EmsgBoxesShowAndFollowAChange() throws {
        let station = try HLSStation(self, shape: .dash, options: ["--emsg", "1"])
        try assertTitlesFollow(station, url: station.url("/live.mpd"))
    }

    /// Live DASH whose MPD announces its titles in an EventStream (AOM's ID3 scheme, base64 ID3): the
    /// current event's title shows, and an event added at the time of a change shows once that time plays.
    func testDASHEventStreamTitlesShowAndFollowAChange() throws {
        let station = try HLSStation(self, shape: .dash, options: ["--event-stream"])
        try assertTitlesFollow(station, url: station.url("/live.mpd"))
    }

    /// On-demand DASH (a static MPD) with an EventStream event at 0: its title shows while it plays.
    func testOnDemandDASHEventStreamTitleShows() throws {
        let station = try HLSStation(self, shape: .dashOnDemand, options: ["--event-stream"])
        let run = try OtonRun(self, ["play", "--headless", station.url("/live.mpd")])
        XCTAssertTrue(
            run.wait(timeout: 60) { run.stdout.contains("now playing: Artist A – Song One") }.met, "the event's title shows\n\(run.stdout)\n\(run.stderr)")
        XCTAssertTrue(run.wait(timeout: 60) { !run.process.isRunning }.met, "the on-demand MPD plays to its end\n\(run.stderr)")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
    }

    /// Every segment first carries an emsg cut short, one of 2 MB and one whose ID3 tag is garbage: each
    /// is skipped (the first two with one notice each for the whole run, not one per segment), the real
    /// title still shows, segments keep coming, and memory stays bounded.
    func testHostileEmsgBoxesAreSkippedWithOneNoticeEachAndPlaybackGoesOn() throws {
        let station = try HLSStation(self, shape: .fmp4, options: ["--emsg", "1", "--emsg-hostile"])
        let run = try OtonRun(self, ["play", "--headless", station.url("/live.m3u8")])
        let titled = run.wait(timeout: 60) { run.stdout.contains("now playing: Artist A – Song One") }
        XCTAssertTrue(titled.met, "the title after the hostile boxes shows\n\(run.stdout)\n\(run.stderr)")
        let first = station.segmentRequests
        let streamed = run.wait(timeout: 60) { station.segmentRequests >= first + 8 }
        XCTAssertTrue(streamed.met, "segments keep coming (\(station.segmentRequests - first) of 8)\n\(run.stderr)")
        XCTAssertLessThan(max(titled.peakMegabytes, streamed.peakMegabytes), HLSShapesTests.memoryBoundMegabytes)
        XCTAssertEqual(Self.count("emsg) of 2048 KiB is over the 256 KiB", in: run.stderr), 1, run.stderr)
        XCTAssertEqual(Self.count("emsg) is cut short or malformed", in: run.stderr), 1, run.stderr)
        for foreign in ["Cut – Short", "Huge – Box"] { XCTAssertFalse(run.stdout.contains(foreign), run.stdout) }
        XCTAssertFalse(run.stdout.contains("state: reconnecting"), run.stdout)
        XCTAssertFalse(run.stdout.contains("state: error"), run.stdout)
        XCTAssertNotNil(run.terminate(), "SIGTERM did not end oton play")
    }

    /// `oton record` cuts fMP4 HLS at its emsg titles as it cuts packed audio at its ID3 tags: the track
    /// between two title changes is one complete AAC file named by its title.
    func testRecordingFMP4HLSCutsItsFilesAtTheEmsgTitles() async throws {
        let station = try HLSStation(self, shape: .fmp4, options: ["--emsg", "1"])
        let harness = try RecordHarness(self, url: station.url("/live.m3u8"))
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 60) { $0["title"] == "Song One" }, harness.stderr)
        try station.setTitle(artist: "Artist B", title: "Song Two")
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 45) { $0["title"] == "Song Two" }, harness.stderr)
        try await Task.sleep(nanoseconds: 3_000_000_000)  // Song Two gets some audio before it ends
        try station.setTitle(artist: "Artist C", title: "Song Three")
        XCTAssertNotNil(
            harness.waitForEvent("org.oton.recording.finished", timeout: 45) { $0["path"]?.hasSuffix("Artist B - Song Two.aac") == true },
            "\(harness.finishedEvents())\n\(harness.stdout)")
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        let files = harness.files()
        let complete = try XCTUnwrap(
            files.first { $0.hasSuffix("Artist B - Song Two.aac") && !$0.contains("/incomplete/") }, "Song Two is a complete file: \(files)")
        let discovered = try Discovered.run(harness.out + "/" + complete)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertTrue(discovered.text.contains("MPEG-4 AAC"), discovered.text)
        XCTAssertGreaterThan(discovered.seconds, 2, discovered.text)
    }

    private func assertTitlesFollow(_ station: HLSStation, url: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let run = try OtonRun(self, ["play", "--headless", url])
        XCTAssertTrue(
            run.wait(timeout: 60) { run.stdout.contains("now playing: Artist A – Song One") }.met,
            "the in-band title shows\n\(run.stdout)\n\(run.stderr)\n\(station.requests.suffix(20))", file: file, line: line)
        try station.setTitle(artist: "Artist B", title: "Песня Два")
        XCTAssertTrue(
            run.wait(timeout: 45) { run.stdout.contains("now playing: Artist B – Песня Два") }.met,
            "the new in-band title follows\n\(run.stdout)\n\(run.stderr)", file: file, line: line)
        XCTAssertFalse(run.stdout.contains("state: error"), run.stdout, file: file, line: line)
        XCTAssertNotNil(run.terminate(), "SIGTERM did not end oton play", file: file, line: line)
    }

    private static func count(_ text: String, in haystack: String) -> Int {
        haystack.components(separatedBy: text).count - 1
    }
}
