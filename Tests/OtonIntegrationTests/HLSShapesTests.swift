import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// Issue 27's HLS and DASH shapes, each against a loopback station of Tests/Fixtures/hls_server.py
/// and the real `oton` binary: exit code and message, resident memory from /proc, SIGTERM within
/// 2 s, and a recording's files only inside its output folder.
final class HLSShapesTests: XCTestCase {
    /// What every shape must stay under, whatever the station sends.
    static let memoryBoundMegabytes = 200.0

    /// 27.4: every segment carries a 30 MB ID3 tag (a cover picture and a private frame). The tags are
    /// cut to their small frames as they download (ID3TagSlimmer), and large freed buffers go back to
    /// the system (LargeBufferMemoryPolicy), so memory stays bounded while the titles still come
    /// through; without the first, RSS passed 1 GB within half a minute, without the second it crept
    /// up by about 100 MB a minute.
    func testSegmentsWithHugeID3TagsKeepMemoryBoundedAndTitlesStillShow() throws {
        let station = try HLSStation(self, options: ["--big-tag-mb", "30"])
        let run = try OtonRun(self, ["play", "--headless", station.url("/live.m3u8")])
        let titled = run.wait(timeout: 60) { run.stdout.contains("now playing: Artist A – Song One") }
        XCTAssertTrue(titled.met, "the title still comes from the slimmed ID3 tag\n\(run.stdout)\n\(run.stderr)")
        let first = station.segmentRequests
        // 30 more segments: 900 MB of tags streamed through the player.
        let streamed = run.wait(timeout: 150) { station.segmentRequests >= first + 30 }
        XCTAssertTrue(streamed.met, "segments keep coming (\(station.segmentRequests - first) of 30)\n\(run.stderr)")
        let peak = max(titled.peakMegabytes, streamed.peakMegabytes)
        XCTAssertLessThan(peak, Self.memoryBoundMegabytes, "VmRSS peaked at \(Int(peak)) MB")
        XCTAssertFalse(run.stdout.contains("state: reconnecting"), run.stdout)
        let took = try XCTUnwrap(run.terminate(), "SIGTERM did not end oton play")
        XCTAssertLessThan(took, 2.0, "SIGTERM took \(took) s")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
    }

    /// 27.7: live MPEG-TS HLS as ffmpeg's hls muxer writes it (the matrix's TS shape) starts and keeps
    /// fetching, start after start. It stalled in about one start of four: buffering messages asked
    /// PAUSED and PLAYING just as the pipeline's preroll ended, GStreamer dropped its own way on to
    /// PLAYING, hlsdemux filled its queue and stopped fetching, and the watchdog reconnected 10 s later
    /// (PipelineStateRequestsTests makes that race happen every time; Benchmarks/hls_ts_stalls/run
    /// counts stalls over many starts). Each start here must go on fetching with no watchdog.
    func testLiveMPEGTSHLSFromFFmpegStartsWithoutAStall() throws {
        let station = try HLSStation(self, shape: .tsFFmpeg, options: ["--segment-seconds", "2"])
        for start in 1...4 {
            let run = try OtonRun(self, ["play", "--headless", station.url("/live.m3u8")])
            XCTAssertTrue(run.wait(timeout: 60) { run.stdout.contains("state: playing") }.met, "start \(start): \(run.stderr)")
            let playing = station.segmentRequests
            // Segments come every 2 s while audio flows; a stalled start fetches none until the watchdog.
            let fetching = run.wait(timeout: 30) { station.segmentRequests >= playing + 3 || run.stderr.contains("no audio reached the output") }
            XCTAssertTrue(fetching.met, "start \(start): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("no audio reached the output"), "start \(start) stalled: \(run.stderr)")
            XCTAssertTrue(station.requests.contains { $0.hasSuffix(".ts") })
            let took = try XCTUnwrap(run.terminate(), "SIGTERM did not end oton play")
            XCTAssertLessThan(took, 2.0, "SIGTERM took \(took) s")
        }
    }

    /// HLS over HTTPS from a station with its own certificate authority (SSL_CERT_FILE): the resolver's
    /// fetch of the .m3u8 (libcurl, which does not read SSL_CERT_FILE by itself: it refused the station
    /// as self-signed), the segments and the playlist reloads all trust that authority, so playback
    /// starts and goes on past the reloads.
    func testHLSOverHTTPSWithItsOwnCertificateAuthorityKeepsReloading() throws {
        let station = try HLSStation(self)
        let proxy = try TLSProxy(self, upstreamPort: station.port)
        let run = try OtonRun(self, ["play", "--headless", proxy.url(mount: "/live.m3u8")], environment: ["SSL_CERT_FILE": proxy.certificate])
        XCTAssertTrue(run.wait(timeout: 60) { run.stdout.contains("state: playing") }.met, run.stderr)
        let playing = station.segmentRequests
        let reloads = { station.requests.filter { $0 == "/live.m3u8" }.count }
        let reloaded = run.wait(timeout: 30) { reloads() >= 5 && station.segmentRequests >= playing + 3 }
        XCTAssertTrue(reloaded.met, "\(reloads()) playlist requests, \(station.segmentRequests - playing) segments since playing\n\(run.stderr)")
        XCTAssertFalse(run.stdout.contains("state: error"), run.stdout)
        XCTAssertNotNil(run.terminate(), "SIGTERM did not end oton play")
    }

    /// 27.6: fMP4/CMAF HLS is recorded as ADTS .aac (the demuxed AAC framed again), a file
    /// gst-discoverer reads, and --duration ends the recording.
    func testFMP4HLSRecordsAPlayableAACFileAndDurationEnds() throws {
        let station = try HLSStation(self, shape: .fmp4)
        let run = try OtonRun(self, ["record", station.url("/live.m3u8"), "--out", "{out}", "--min-seconds", "1", "--duration", "6s"])
        let ended = run.wait(timeout: 90) { !run.process.isRunning }
        XCTAssertTrue(ended.met, "--duration 6s ended the recording\n\(run.stderr)")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        XCTAssertLessThan(ended.peakMegabytes, Self.memoryBoundMegabytes)
        XCTAssertTrue(station.requests.contains { $0.hasSuffix(".m4s") }, "fMP4 fragments were fetched: \(station.requests)")
        let recorded = try XCTUnwrap(run.outputFiles().first { $0.hasSuffix(".aac") }, "an .aac file: \(run.outputFiles())\n\(run.stderr)")
        let path = run.out + "/" + recorded
        let head = try XCTUnwrap(FileHandle(forReadingAtPath: path)?.readData(ofLength: 2))
        XCTAssertEqual(Array(head), [0xFF, 0xF1], "the file starts on an ADTS frame")
        let discovered = try Discovered.run(path)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertTrue(discovered.text.contains("MPEG-4 AAC"), discovered.text)
        XCTAssertGreaterThan(discovered.seconds, 4, discovered.text)
        XCTAssertEqual(run.filesOutsideOutput(), [], "a recording writes only inside --out")
    }

    /// 27.6: SIGTERM ends an fMP4 HLS recording within 2 s, exit 0.
    func testFMP4HLSRecordingStopsOnSIGTERM() throws {
        let station = try HLSStation(self, shape: .fmp4)
        let run = try OtonRun(self, ["record", station.url("/live.m3u8"), "--out", "{out}", "--min-seconds", "1"])
        let started = run.wait(timeout: 60) { run.outputFiles().contains { $0.hasSuffix(".aac.part") } }
        XCTAssertTrue(started.met, "recording began: \(run.outputFiles())\n\(run.stderr)")
        let took = try XCTUnwrap(run.terminate(), "SIGTERM did not end oton record")
        XCTAssertLessThan(took, 2.0, "SIGTERM took \(took) s")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        XCTAssertEqual(run.filesOutsideOutput(), [])
    }

    /// 27.8: an EVENT playlist that gains #EXT-X-ENDLIST is played to its end once: "the broadcast
    /// has ended", exit 0, no segment fetched twice (no replay from the start).
    func testAnEndedEventPlaylistEndsLikeAFile() throws {
        let station = try HLSStation(self, shape: .event, options: ["--event-segments", "12"])
        let run = try OtonRun(self, ["play", "--headless", station.url("/live.m3u8")])
        let ended = run.wait(timeout: 90) { !run.process.isRunning }
        XCTAssertTrue(ended.met, "oton play ended with the broadcast\n\(run.stdout)\n\(run.stderr)")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("the broadcast has ended"), run.stderr)
        XCTAssertFalse(run.stderr.contains("the server ended the stream"), run.stderr)
        XCTAssertFalse(run.stdout.contains("state: reconnecting"), run.stdout)
        XCTAssertLessThan(ended.peakMegabytes, Self.memoryBoundMegabytes)
        let segments = station.requests.filter { $0.contains("/seg/") }
        XCTAssertTrue(segments.contains("/seg/11.aac"), "played to the last segment: \(segments)")
        XCTAssertEqual(segments.count, Set(segments).count, "no segment fetched twice: \(segments)")
    }

    /// 27.8: SIGTERM while an event playlist still grows: gone within 2 s, exit 0.
    func testAnEventPlaylistStopsOnSIGTERM() throws {
        let station = try HLSStation(self, shape: .event, options: ["--event-segments", "200"])
        let run = try OtonRun(self, ["play", "--headless", station.url("/live.m3u8")])
        XCTAssertTrue(run.wait(timeout: 60) { run.stdout.contains("state: playing") }.met, run.stderr)
        let took = try XCTUnwrap(run.terminate(), "SIGTERM did not end oton play")
        XCTAssertLessThan(took, 2.0, "SIGTERM took \(took) s")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
    }

    /// 27.9: live DASH as ffmpeg's -f dash makes it plays (it was "missing a plug-in", then "doesn't
    /// lead to an audio stream"): segments keep being fetched while it plays, no error, bounded memory.
    func testLiveDASHPlays() throws {
        let station = try HLSStation(self, shape: .dash)
        let run = try OtonRun(self, ["play", "--headless", station.url("/live.mpd")])
        let playing = run.wait(timeout: 60) { run.stdout.contains("state: playing") }
        XCTAssertTrue(playing.met, "\(run.stdout)\n\(run.stderr)")
        let fetched = station.segmentRequests
        let more = run.wait(timeout: 60) { station.segmentRequests >= fetched + 4 }
        XCTAssertTrue(more.met, "DASH segments keep being fetched: \(station.requests.suffix(10))")
        XCTAssertTrue(run.process.isRunning, run.stderr)
        for refusal in ["missing a plug-in", "doesn't lead to an audio stream", "state: error"] {
            XCTAssertFalse((run.stdout + run.stderr).contains(refusal), "\(refusal)\n\(run.stdout)\n\(run.stderr)")
        }
        XCTAssertLessThan(max(playing.peakMegabytes, more.peakMegabytes), Self.memoryBoundMegabytes)
        let took = try XCTUnwrap(run.terminate(), "SIGTERM did not end oton play")
        XCTAssertLessThan(took, 2.0, "SIGTERM took \(took) s")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
    }

    /// Issue 39 §3: live DASH as ffmpeg's `-f dash` writes it, with 2 s segments, plays for as long as it
    /// runs. It stopped when ffmpeg's window first slid (after 6 segments, 12 s): GStreamer 1.22's
    /// dashdemux misplaced its position in a SegmentTimeline that no longer starts at 0, fetched only
    /// /live.mpd from then on, and the player ran dry ("buffering-timeout"); joined after the slide it
    /// fetched no segment at all (DASHTimelineRepair). Here the station is joined before the slide and
    /// again after it, and each run must go on fetching new segments well past the window.
    func testLiveDASHFromFFmpegPlaysPastItsWindowSlides() throws {
        let station = try HLSStation(self, shape: .dash, options: ["--segment-seconds", "2"])
        for join in ["before the window slid", "after the window slid"] {
            if join.hasPrefix("after") {
                // The window (6 segments) has slid once the newest segment is past number 7.
                XCTAssertTrue(station.waitForManifestWindowToSlide(timeout: 60), "ffmpeg's window slides")
            }
            let run = try OtonRun(self, ["play", "--headless", station.url("/live.mpd")])
            let playing = run.wait(timeout: 60) { run.stdout.contains("state: playing") }
            XCTAssertTrue(playing.met, "\(join): \(run.stdout)\n\(run.stderr)")
            let first = station.newestSegmentFetched ?? 0
            let started = Date()
            // 30 s of play, 15 segments of 2 s: at least 12 new ones fetched (generous on a loaded machine),
            // the last of them after 30 s, and no dry spell.
            let fetched = run.wait(timeout: 120) {
                (station.newestSegmentFetched ?? 0) >= first + 12 && Date().timeIntervalSince(started) >= 30
            }
            XCTAssertTrue(
                fetched.met,
                "\(join): segments keep being fetched (newest \(station.newestSegmentFetched ?? -1), first \(first))"
                    + " \(station.requests.suffix(8))\n\(run.stderr)")
            let latest = station.newestSegmentFetched ?? 0
            XCTAssertTrue(run.wait(timeout: 30) { (station.newestSegmentFetched ?? 0) > latest }.met, "\(join): still fetching after 30 s")
            XCTAssertTrue(run.process.isRunning, run.stderr)
            for failure in ["stopped delivering audio", "buffering-timeout", "state: reconnecting", "state: error"] {
                XCTAssertFalse((run.stdout + run.stderr).contains(failure), "\(join): \(failure)\n\(run.stdout)\n\(run.stderr)")
            }
            XCTAssertLessThan(max(playing.peakMegabytes, fetched.peakMegabytes), Self.memoryBoundMegabytes)
            let took = try XCTUnwrap(run.terminate(), "SIGTERM did not end oton play")
            XCTAssertLessThan(took, 2.0, "SIGTERM took \(took) s")
        }
    }

    /// Issue 39 §3: `oton record --duration` on live DASH (ffmpeg's, 2 s segments) records for as long as it
    /// is asked, past the window's slides, and ends there: it wrote nothing and ended only at the safety
    /// limit (twice the duration plus 30 s) when the demuxer stopped fetching.
    func testRecordingLiveDASHForADurationEndsWithThatMuchAudio() throws {
        let station = try HLSStation(self, shape: .dash, options: ["--segment-seconds", "2"])
        XCTAssertTrue(station.waitForManifestWindowToSlide(timeout: 60), "ffmpeg's window slides")
        let asked = 24.0
        let run = try OtonRun(self, ["record", station.url("/live.mpd"), "--out", "{out}", "--duration", "24s", "--min-seconds", "1"])
        let started = Date()
        let ended = run.wait(timeout: 150) { !run.process.isRunning }
        XCTAssertTrue(ended.met, "the recording ends\n\(run.stderr)")
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        // The safety limit would end it only at 2 × 24 + 30 = 78 s.
        XCTAssertLessThan(took, 2 * asked + 20, "ended by --duration, not by the safety limit\n\(run.stderr)")
        let recorded = try XCTUnwrap(run.outputFiles().first { $0.hasSuffix(".aac") }, "\(run.outputFiles())\n\(run.stderr)")
        let discovered = try Discovered.run(run.out + "/" + recorded)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertEqual(discovered.seconds, asked, accuracy: 2.5, "the file holds the asked duration: \(discovered.text)\n\(run.stderr)")
        XCTAssertEqual(run.filesOutsideOutput(), [])
    }

    /// 27.9: recording on-demand DASH ends with the MPD ("the broadcast has ended", exit 0) instead
    /// of "the server ended the stream" and a reconnect for ever; the file is readable.
    func testRecordingOnDemandDASHEndsWithTheManifest() throws {
        let station = try HLSStation(self, shape: .dashOnDemand)
        let run = try OtonRun(self, ["record", station.url("/live.mpd"), "--out", "{out}", "--min-seconds", "1"])
        let ended = run.wait(timeout: 90) { !run.process.isRunning }
        XCTAssertTrue(ended.met, "the recording ended with the MPD\n\(run.stderr)")
        XCTAssertEqual(run.process.terminationStatus, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("the broadcast has ended"), run.stderr)
        XCTAssertFalse(run.stderr.contains("the server ended the stream"), run.stderr)
        XCTAssertLessThan(ended.peakMegabytes, Self.memoryBoundMegabytes)
        let recorded = try XCTUnwrap(run.outputFiles().first { $0.hasSuffix(".aac") }, "\(run.outputFiles())\n\(run.stderr)")
        let discovered = try Discovered.run(run.out + "/" + recorded)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertGreaterThan(discovered.seconds, 6, "the whole 8 s: \(discovered.text)")
        XCTAssertEqual(run.filesOutsideOutput(), [])
    }
}
