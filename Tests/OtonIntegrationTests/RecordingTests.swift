import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record` with the file-sink plugin against a real Icecast2 server.
final class RecordingTests: XCTestCase {
    /// Changes the title `titles` times, `spacing` seconds apart, and returns when the recorder saw each (host track events).
    private func changeTitles(_ server: IcecastServer, mount: String, _ titles: [String], spacing: Double, harness: RecordHarness) async throws {
        for title in titles {
            try await Task.sleep(nanoseconds: UInt64(spacing * 1e9))  // the track's length: what the test records
            try await server.setTitle(mount: mount, title: title)
            let song = String(title.split(separator: "-").last ?? "").trimmingCharacters(in: .whitespaces)
            XCTAssertNotNil(harness.waitForEvent("track", timeout: 20) { $0["title"] == song }, "track \(song) seen")
        }
    }

    /// Seconds between the host's track events for these titles (what the recorder should cut at).
    private func trackSpans(_ harness: RecordHarness, titles: [String]) -> [String: Double] {
        var times: [(String, Double)] = []
        for event in harness.events where event["kind"] as? String == "track" {
            if let title = harness.fields(event)["title"], let mono = event["mono_ns"] as? Double, !times.contains(where: { $0.0 == title }) {
                times.append((title, mono / 1e9))
            }
        }
        var spans: [String: Double] = [:]
        for (index, entry) in times.enumerated() where index + 1 < times.count {
            spans[entry.0] = times[index + 1].1 - entry.1
        }
        return spans
    }

    private func checkRecording(format: StreamFormat, mount: String, ext: String, extra: [String] = []) async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: mount, format: format, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
        let harness = try RecordHarness(self, url: server.url(mount: mount).absoluteString, extra: extra)
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        try await changeTitles(
            server, mount: mount, ["Artist B - Song Two", "Artist C - Song Three", "Artist D - Song Four"],
            spacing: 4, harness: harness)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)

        let files = harness.files()
        XCTAssertEqual(
            files,
            [
                "Oton Test FM/Artist B - Song Two.\(ext)", "Oton Test FM/Artist C - Song Three.\(ext)",
                "Oton Test FM/incomplete/Artist A - Song One.\(ext)", "Oton Test FM/incomplete/Artist D - Song Four.\(ext)",
                "index.json",
            ], harness.stderr)
        let spans = trackSpans(harness, titles: [])
        for (title, artist) in [("Song Two", "Artist B"), ("Song Three", "Artist C")] {
            let path = harness.out + "/Oton Test FM/\(artist) - \(title).\(ext)"
            let found = try Discovered.run(path)
            XCTAssertTrue(found.ok, found.text)
            let expected = try XCTUnwrap(spans[title], "\(spans)")
            XCTAssertEqual(found.seconds, expected, accuracy: 1.0, "\(title): \(found.text)")
            print("measured: \(format) \(ext) \(title) file \(found.seconds) s, title events \(expected) s apart")
            XCTAssertTrue(found.text.contains("title: \(title)"), found.text)
            XCTAssertTrue(found.text.contains("artist: \(artist)"), found.text)
            if ext == "wav" {
                let head = [UInt8](try XCTUnwrap(FileHandle(forReadingAtPath: path)).readData(ofLength: 12))
                XCTAssertEqual(Array(head[0..<4]) + Array(head[8..<12]), Array("RIFFWAVE".utf8))
                XCTAssertTrue(found.text.contains("album: Oton Test FM"), found.text)
                XCTAssertTrue(found.text.contains("Sample rate: 44100") && found.text.contains("Channels: 2"), found.text)
            } else if format == .ogg {
                // The file sink rewrites the comment header: Icecast's own chain has no album or comment.
                XCTAssertTrue(found.text.contains("album: Oton Test FM"), found.text)
                XCTAssertTrue(found.text.contains(server.url(mount: mount).absoluteString), "comment: stream URL\n\(found.text)")
            } else if format == .mp3 {
                let head = try XCTUnwrap(FileHandle(forReadingAtPath: path)).readData(ofLength: 4)
                XCTAssertEqual([UInt8](head), [0x49, 0x44, 0x33, 4], "ID3v2.4")
                XCTAssertTrue(found.text.contains("album: Oton Test FM"), found.text)
                XCTAssertTrue(found.text.contains(server.url(mount: mount).absoluteString), "comment: stream URL\n\(found.text)")
            }
        }
        for partial in files where partial.contains("/incomplete/") {
            XCTAssertTrue(try Discovered.run(harness.out + "/" + partial).ok, partial)
        }
        let index = try harness.index()
        let tracks = try XCTUnwrap(index["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.map { $0["status"] as? String }, ["incomplete", "complete", "complete", "incomplete"])
        XCTAssertEqual(tracks.compactMap { $0["stream_offset"] as? Int }.count, 4)
        XCTAssertEqual(tracks.compactMap { $0["stream_offset"] as? Int }, tracks.compactMap { $0["stream_offset"] as? Int }.sorted())
        XCTAssertEqual(harness.stdout.split(separator: "\n").filter { $0.hasPrefix("complete: ") }.count, 2, harness.stdout)
    }

    func testMP3TitleChangesGiveOneTaggedFilePerTrackAndPartialOnesInIncomplete() async throws {
        try await checkRecording(format: .mp3, mount: "/rec.mp3", ext: "mp3")
    }

    func testWAVFromThePCMTapIsCutAtEachTitleAndTagged() async throws {
        try await checkRecording(format: .mp3, mount: "/rec-wav.mp3", ext: "wav", extra: ["--format", "wav"])
    }

    func testOggJoinedMidStreamIsTaggedAndLastsWhatWasRecorded() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/late.ogg", format: .ogg, initialTitle: "Artist A - Song One")
        try await Task.sleep(nanoseconds: 8_000_000_000)  // the logical stream is 8 s old when recording joins it
        // Longer than Icecast's burst, which arrives at once: --duration counts audio, and a stop inside the burst
        // can come before the first title event names the file.
        let harness = try RecordHarness(self, url: server.url(mount: "/late.ogg").absoluteString, extra: ["--duration", "10s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 30), 0, harness.stderr)
        let path = harness.out + "/Oton Test FM/incomplete/Artist A - Song One.ogg"
        let found = try Discovered.run(path)
        XCTAssertTrue(found.ok, found.text)
        // What was recorded (Icecast's burst on connect included), from the pages' own granule steps.
        let tracks = try XCTUnwrap(try harness.index()["tracks"] as? [[String: Any]])
        let recorded = try XCTUnwrap(tracks.first?["seconds"] as? Double)
        print("measured: ogg joined 8 s into its stream, file \(found.seconds) s, recorded \(recorded) s")
        XCTAssertEqual(found.seconds, recorded, accuracy: 1, found.text)
        // GStreamer measures from the first granule, other players from 0: the granules must start near 0.
        let bytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: path)))
        var at = 0
        var lastGranule: Int64 = 0
        var rate = 0
        while at + 27 <= bytes.count {
            let segments = Int(bytes[at + 26])
            let body = (0..<segments).reduce(0) { $0 + Int(bytes[at + 27 + $1]) }
            let granule = (0..<8).reduce(Int64(0)) { $0 | Int64(bytes[at + 6 + $1]) << (8 * Int64($1)) }
            if rate == 0 { rate = (0..<4).reduce(0) { $0 | Int(bytes[at + 27 + segments + 12 + $1]) << (8 * $1) } }  // Vorbis id header
            if granule > 0 { lastGranule = granule }
            at += 27 + segments + body
        }
        XCTAssertEqual(at, bytes.count, "whole pages")
        XCTAssertGreaterThan(rate, 0)
        XCTAssertEqual(
            Double(lastGranule) / Double(max(rate, 1)), recorded, accuracy: 1,
            "the last granule is the length of the recording, not the stream's running time")
        XCTAssertTrue(found.text.contains("title: Song One") && found.text.contains("album: Oton Test FM"), found.text)
    }

    /// streamripper's silence search on the encoded stream: the tone pauses for 0.6 s every 5 s, the titles change 7 s
    /// apart at arbitrary moments, and with --silence-window 3 every cut must land in a pause.
    func testMP3CutsMoveIntoTheNearestPauseWithASilenceWindow() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/pause.mp3", format: .mp3WithPauses, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/pause.mp3").absoluteString, extra: ["--silence-window", "3"])
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        // The decoded audio (the PCM tap) must be flowing before the titles change: it is what the search reads.
        let history = {
            harness.events.map { "\($0["kind"] ?? "") \(($0["fields"] as? [String: String]).map { $0["title"] ?? $0["state"] ?? "" } ?? "")" }
                .filter { $0 != "state buffering" }.joined(separator: " | ")
        }
        XCTAssertNotNil(harness.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, harness.stderr + "\n" + history())
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 20) { $0["title"] == "Song One" }, harness.stderr + "\n" + history())
        try await changeTitles(server, mount: "/pause.mp3", ["Artist B - Song Two", "Artist C - Song Three"], spacing: 7, harness: harness)
        print("events: " + history())
        XCTAssertNotNil(
            harness.waitForEvent("org.oton.recording.finished", timeout: 20) { $0["path"]?.hasSuffix("Song Two.mp3") == true },
            harness.stderr)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        let path = harness.out + "/Oton Test FM/Artist B - Song Two.mp3"
        let found = try Discovered.run(path)
        XCTAssertTrue(found.ok, found.text)
        let periods = (found.seconds / 5).rounded()
        print("measured: mp3 with pauses every 5 s, titles 7 s apart, --silence-window 3: file \(found.seconds) s")
        XCTAssertEqual(found.seconds, periods * 5, accuracy: 0.7, "both cuts in a pause, so the file spans whole 5 s periods")
        // Decode it: the first and last 40 ms are the pause; over the whole file the tone dominates.
        let raw = harness.directory.file("two.raw")
        let decoded = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "filesrc", "location=\(path)", "!", "decodebin", "!",
                "audioconvert", "!", "audio/x-raw,format=S16LE,channels=1,rate=44100", "!",
                "filesink", "location=\(raw)",
            ])
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let samples = try XCTUnwrap(FileManager.default.contents(atPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        func meanSquare(_ range: Range<Int>) -> Double {
            range.reduce(0.0) {
                let value = Double(samples[$1]) / 32768; return $0 + value * value
            } / Double(max(range.count, 1))
        }
        let edge = 44100 * 40 / 1000
        XCTAssertGreaterThan(samples.count, 4 * edge)
        guard samples.count > 4 * edge else { return }
        let whole = meanSquare(0..<samples.count)
        XCTAssertGreaterThan(whole, 0.01, "the tone")
        XCTAssertLessThan(meanSquare(0..<edge), whole / 100, "the file starts in a pause")
        XCTAssertLessThan(meanSquare(samples.count - edge..<samples.count), whole / 100, "the file ends in a pause")
    }

    func testChainedOggIsCutAtEachNewLogicalStream() async throws {
        try await checkRecording(format: .ogg, mount: "/rec.ogg", ext: "ogg")
    }
}
