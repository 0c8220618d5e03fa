import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// Stream shapes the recorder got wrong beside mpv and streamripper (issue 39 §3 and N15), each
/// recorded by `oton record` from a real server and read back with ffprobe and gst-discoverer:
/// native FLAC over HTTP, `--duration` cut at the frame or page on every codec with the server's
/// burst, a chained Ogg that changes codec, an MP3 stream whose first frame is a Xing frame, and a
/// server that switches from MP3 to Ogg within one connection.
final class RecordStreamShapesTests: XCTestCase {
    // MARK: native FLAC

    /// `audio/flac` (not in Ogg) once made a "0.0 s" `.bin` that was dropped. The file served is a whole
    /// 30 s FLAC file, so its STREAMINFO says 30 s: the recording must say its own length.
    func testNativeFLACIsRecordedAsAFLACFileOfItsOwnLength() throws {
        let server = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        let file = directory.file("tone.flac")
        try encode(file, buffers: 1300, wave: "sine", rate: 44100, encoder: ["flacenc"])
        let url = server.url(fileQuery(file, type: "audio/flac", seconds: 30))
        for engine in ["light", "gstreamer"] {
            let recorder = try RecordHarness(self, url: url, extra: ["--engine", engine, "--duration", "6s", "--partial", "keep"])
            try recorder.start()
            XCTAssertEqual(recorder.waitForExit(timeout: 90), 0, "\(engine): \(recorder.stderr)")
            let files = recorder.files().filter { $0 != "index.json" }
            XCTAssertEqual(files.count, 1, "\(engine): \(files) \(recorder.stdout) \(recorder.stderr)")
            guard let name = files.first else { continue }
            XCTAssertTrue(name.hasSuffix(".flac"), "\(engine): \(name)")
            let path = recorder.out + "/" + name
            let probed = try Probe(path)
            XCTAssertEqual(probed.codec, "flac", "\(engine): \(probed.text)")
            XCTAssertEqual(probed.seconds, 6, accuracy: 0.1, "\(engine) ffprobe: \(probed.text)")
            let discovered = try Discovered.run(path)
            XCTAssertTrue(discovered.ok, "\(engine): \(discovered.text)")
            XCTAssertEqual(discovered.seconds, 6, accuracy: 0.1, "\(engine) gst-discoverer: \(discovered.text)")
            print("[measure] native FLAC, \(engine): \(name), ffprobe \(probed.seconds) s, gst-discoverer \(discovered.seconds) s")
            // Tagged as Ogg files are (a VORBIS_COMMENT block): the stream URL as COMMENT.
            let tags = try formatTags(path)
            XCTAssertEqual(tags["comment"], url, "\(engine): \(tags)")
            XCTAssertNotNil(tags["album"], "\(engine): the station as ALBUM: \(tags)")
        }
    }

    /// The Ogg end trim (to the sample of `--duration`) was made only with tags on: with `"tags": false`
    /// a Vorbis file ended at its last whole page, up to a page past the duration asked for.
    func testOggIsTrimmedToTheDurationWithTagsOff() throws {
        let server = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        let file = directory.file("tone.ogg")
        try encode(file, buffers: 1300, wave: "pink-noise", rate: 44100, encoder: ["vorbisenc", "quality=0.9", "!", "oggmux"])
        let url = server.url(fileQuery(file, type: "audio/ogg", seconds: 30, burst: 65_535))
        let config = """
            {"stations": [], "plugins": [{"id": "org.oton.file-sink", "path": "\(TestPaths.pluginLibrary("OtonFileSink"))", "config": {"tags": false}}]}
            """
        let recorder = try RecordHarness(self, url: url, extra: ["--engine", "light", "--duration", "6s", "--partial", "keep"], config: config)
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 90), 0, recorder.stderr)
        let files = recorder.files().filter { $0 != "index.json" }
        XCTAssertEqual(files.count, 1, "\(files) \(recorder.stdout) \(recorder.stderr)")
        guard let name = files.first else { return }
        let probed = try Probe(recorder.out + "/" + name)
        let discovered = try Discovered.run(recorder.out + "/" + name)
        print("[measure] --duration 6s, Vorbis, tags off: ffprobe \(probed.seconds) s, gst-discoverer \(discovered.seconds) s (\(name))")
        XCTAssertEqual(probed.seconds, 6, accuracy: 0.1, probed.text)
        XCTAssertEqual(discovered.seconds, 6, accuracy: 0.1, discovered.text)
        XCTAssertNotEqual(try formatTags(recorder.out + "/" + name)["comment"], url, "and not tagged by oton (the stream URL as COMMENT)")
    }

    // MARK: --duration

    /// Icecast's burst (64 KiB) reaches a new listener at once; `--duration` cut after the whole piece it
    /// came in overshot by up to 2.4 s. Every codec the lab serves, and AAC from a server with a burst:
    /// the file holds the duration asked for within 0.1 s (to the frame or page).
    func testDurationEndsAtTheFrameOrPageOnEveryCodec() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let formats: [(StreamFormat, String)] = [(.mp3, "/d.mp3"), (.ogg, "/d.ogg"), (.opus, "/d.opus"), (.oggFLAC, "/d.flac.ogg")]
        for (format, mount) in formats {
            // Opus and FLAC mounts do not show a title in Icecast's status (which the fixture waits for): untitled.
            _ = try await server.startSource(mount: mount, format: format, initialTitle: format == .mp3 || format == .ogg ? "Band - Song" : "")
        }
        // The burst is full (Icecast keeps 64 KiB of each mount) once the sources have run a while.
        try await Task.sleep(nanoseconds: 6_000_000_000)
        var urls = formats.map { ($0.0.rawValue, server.url(mount: $0.1).absoluteString) }
        let hostile = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        let aac = directory.file("low.aac")
        try encode(
            aac, buffers: 1300, wave: "pink-noise", rate: 44100, encoder: ["avenc_aac", "bitrate=32000", "!", "aacparse", "!", "audio/mpeg,stream-format=adts"])
        urls.append(("aac 32k", hostile.url(fileQuery(aac, type: "audio/aac", seconds: 30, burst: 65_535))))
        // HE-AAC in ADTS is signalled implicitly: its headers are those of its AAC core at half the rate
        // (1024 samples a frame at 22.05 kHz, 46 ms), which is what the recorder counts. Debian has no
        // HE-AAC encoder; the core's frames at 24 kbit/s mono stand for an HE-AAC v2 station's timing.
        let core = directory.file("he-core.aac")
        try encode(
            core, buffers: 650, wave: "pink-noise", rate: 22050,
            encoder: ["audio/x-raw,channels=1", "!", "avenc_aac", "bitrate=24000", "!", "aacparse", "!", "audio/mpeg,stream-format=adts"])
        urls.append(("aac 22.05 kHz mono (HE-AAC's core)", hostile.url(fileQuery(core, type: "audio/aac", seconds: 30, burst: 65_535))))
        var failures: [String] = []
        for (name, url) in urls {
            let recorder = try RecordHarness(self, url: url, extra: ["--engine", "light", "--duration", "6s", "--partial", "keep"])
            try recorder.start()
            XCTAssertEqual(recorder.waitForExit(timeout: 90), 0, "\(name): \(recorder.stderr)")
            let files = recorder.files().filter { $0 != "index.json" }
            XCTAssertEqual(files.count, 1, "\(name): \(files) \(recorder.stdout) \(recorder.stderr)")
            guard let file = files.first else { continue }
            let probed = try Probe(recorder.out + "/" + file)
            let discovered = try Discovered.run(recorder.out + "/" + file)
            print("[measure] --duration 6s, \(name): ffprobe \(probed.seconds) s, gst-discoverer \(discovered.seconds) s (\(file))")
            // ffprobe only estimates a raw ADTS file's length from its bitrate; GStreamer counts its frames.
            let seconds = file.hasSuffix(".aac") ? discovered.seconds : probed.seconds
            if abs(seconds - 6) > 0.1 || abs(discovered.seconds - 6) > 0.1 { failures.append("\(name): \(probed.seconds) s, \(discovered.seconds) s") }
        }
        XCTAssertEqual(failures, [], "files not within 0.1 s of --duration 6s")
    }

    /// Pieces dropped as shorter than --min-seconds are said in the line that ends the recording: it said
    /// "15 s of audio recorded" where the files held 8 s.
    func testTheStopLineSaysWhatWasNotKept() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/m.mp3", format: .mp3, initialTitle: "Band - First")
        let recorder = try RecordHarness(
            self, url: server.url(mount: "/m.mp3").absoluteString,
            extra: ["--engine", "light", "--duration", "14s", "--min-seconds", "8"])
        try recorder.start()
        // The first title is the recorder's before the second is sent (else the second names the first file).
        XCTAssertNotNil(recorder.waitForEvent("track", timeout: 60) { $0["title"] == "First" }, recorder.stderr)
        try await server.setTitle(mount: "/m.mp3", title: "Band - Second")
        XCTAssertEqual(recorder.waitForExit(timeout: 90), 0, recorder.stderr)
        let dropped = recorder.finishedEvents().filter { $0["status"] == "dropped" }
        XCTAssertEqual(dropped.count, 1, "\(recorder.finishedEvents()) \(recorder.stdout)")
        let stopped = try XCTUnwrap(recorder.events.first { $0["kind"] as? String == "org.oton.file-sink.stopped" }.map(recorder.fields))
        let message = stopped["message"] ?? ""
        XCTAssertTrue(message.contains("not kept"), message)
        XCTAssertTrue(message.contains("1 piece(s) shorter than --min-seconds (8.0 s)"), message)
        XCTAssertTrue(recorder.stderr.contains("not kept"), recorder.stderr)
        print("[measure] stop line: \(message)")
    }

    // MARK: codec changes

    /// An Opus chain, then a Vorbis chain: each file is named after its own codec (the Vorbis one was `.opus`).
    func testAChainedOggThatChangesCodecNamesEachFileAfterItsCodec() throws {
        let server = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        let opus = directory.file("a.opus"), vorbis = directory.file("b.ogg")
        try encode(opus, buffers: 200, wave: "pink-noise", rate: 48000, encoder: ["opusenc", "!", "oggmux"])
        try encode(vorbis, buffers: 200, wave: "pink-noise", rate: 44100, encoder: ["vorbisenc", "!", "oggmux"])
        let url = server.url(fileQuery(opus, then: vorbis, type: "audio/ogg", seconds: 4))
        let recorder = try RecordHarness(self, url: url, extra: ["--engine", "light", "--duration", "7s", "--partial", "keep"])
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 90), 0, recorder.stderr)
        let files = recorder.files().filter { $0 != "index.json" }
        let codecs = try files.map { try Probe(recorder.out + "/" + $0).codec }
        print("[measure] chained Opus → Vorbis: \(zip(files, codecs).map { "\($0) (\($1))" })")
        XCTAssertEqual(files.count, 2, "\(files) \(recorder.stdout) \(recorder.stderr)")
        for (file, codec) in zip(files, codecs) {
            XCTAssertEqual((file as NSString).pathExtension, codec == "opus" ? "opus" : "ogg", "\(file) holds \(codec)")
        }
        XCTAssertEqual(Set(codecs), ["opus", "vorbis"], "\(files)")
    }

    /// A server that sends MP3 and then Ogg in the same body, still called audio/mpeg: the MP3 file holds
    /// MP3 only, and the Ogg goes into a file of its own, with a line that says so.
    func testACodecChangeWithinTheConnectionStartsAFileOfTheNewFormat() throws {
        let server = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        let mp3 = directory.file("a.mp3"), vorbis = directory.file("b.ogg")
        try encode(mp3, buffers: 200, wave: "sine", rate: 44100, encoder: ["lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true"])
        try encode(vorbis, buffers: 200, wave: "pink-noise", rate: 44100, encoder: ["vorbisenc", "!", "oggmux"])
        let url = server.url(fileQuery(mp3, then: vorbis, type: "audio/mpeg", seconds: 4))
        let recorder = try RecordHarness(self, url: url, extra: ["--engine", "light", "--duration", "7s", "--partial", "keep"])
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 90), 0, recorder.stderr)
        let files = recorder.files().filter { $0 != "index.json" }
        print("[measure] MP3 then Ogg in one connection: \(files)")
        let mp3Files = files.filter { $0.hasSuffix(".mp3") }, oggFiles = files.filter { $0.hasSuffix(".ogg") }
        XCTAssertEqual(mp3Files.count, 1, "\(files) \(recorder.stderr)")
        XCTAssertEqual(oggFiles.count, 1, "\(files) \(recorder.stderr)")
        for file in mp3Files {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: recorder.out + "/" + file))
            XCTAssertNil(bytes.range(of: Data("OggS".utf8)), "\(file) holds Ogg pages")
            XCTAssertEqual(try Probe(recorder.out + "/" + file).codec, "mp3")
        }
        for file in oggFiles {
            XCTAssertEqual(try Probe(recorder.out + "/" + file).codec, "vorbis")
            XCTAssertTrue(try Discovered.run(recorder.out + "/" + file).ok, file)
        }
        XCTAssertTrue(recorder.stderr.contains("the stream changed from MP3 to Ogg within the connection"), recorder.stderr)
    }

    // MARK: Xing

    /// A VBR MP3 file served as a stream starts with a Xing frame that counts the whole file's frames:
    /// kept, an 8 s recording read as 100 s in ffprobe; left out with nothing in its place, ffprobe
    /// estimated 7.75 s from the first frames' bitrate. The file's own Xing frame says 8 s.
    func testAnMP3StreamsXingFrameIsNotKept() throws {
        let server = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        let file = directory.file("vbr.mp3")
        try encode(file, buffers: 4300, wave: "pink-noise", rate: 44100, encoder: ["lamemp3enc", "target=quality", "quality=4", "!", "xingmux"])
        let head = try XCTUnwrap(FileManager.default.contents(atPath: file)).prefix(200)
        XCTAssertNotNil(head.range(of: Data("Xing".utf8)) ?? head.range(of: Data("Info".utf8)), "the encoder wrote no Xing frame")
        let recorder = try RecordHarness(
            self, url: server.url(fileQuery(file, type: "audio/mpeg", seconds: 25)),
            extra: ["--engine", "light", "--duration", "8s", "--partial", "keep"])
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 90), 0, recorder.stderr)
        let files = recorder.files().filter { $0 != "index.json" }
        XCTAssertEqual(files.count, 1, "\(files) \(recorder.stderr)")
        guard let name = files.first else { return }
        let probed = try Probe(recorder.out + "/" + name)
        print("[measure] Xing MP3 stream, --duration 8s: ffprobe \(probed.seconds) s")
        XCTAssertEqual(probed.seconds, 8, accuracy: 0.1, probed.text)
        let discovered = try Discovered.run(recorder.out + "/" + name)
        XCTAssertEqual(discovered.seconds, 8, accuracy: 0.1, discovered.text)
    }

    // MARK: helpers

    /// The hostile server's `/file` path for `file` (then `then`), paced so that the whole lasts `seconds`.
    private func fileQuery(_ file: String, then: String? = nil, type: String, seconds: Int, burst: Int = 0) -> String {
        let size = [file, then].compactMap { $0 }.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
        var query = "/file?path=\(encoded(file))&type=\(encoded(type))&rate=\(max(size / seconds, 1))"
        if let then { query += "&then=\(encoded(then))" }
        if burst > 0 { query += "&burst=\(burst)" }
        return query
    }

    /// `buffers` × 1024 samples of a test tone, encoded by gst-launch-1.0 into `path`.
    private func encode(_ path: String, buffers: Int, wave: String, rate: Int, encoder: [String]) throws {
        let made = try runProcess(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "audiotestsrc", "num-buffers=\(buffers)", "samplesperbuffer=1024", "wave=\(wave)",
                "volume=0.1", "!", "audio/x-raw,rate=\(rate),channels=2", "!", "audioconvert", "!",
            ]
                + encoder + ["!", "filesink", "location=\(path)"])
        XCTAssertEqual(made.status, 0, made.stderr)
    }
}

/// ffprobe's format and stream tags of a file, keys in lower case.
private func formatTags(_ path: String) throws -> [String: String] {
    let result = try runProcess("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "default=nw=1", path])
    var tags: [String: String] = [:]
    for line in result.stdout.split(separator: "\n") where line.hasPrefix("TAG:") {
        let parts = line.dropFirst(4).split(separator: "=", maxSplits: 1)
        if parts.count == 2 { tags[parts[0].lowercased()] = String(parts[1]) }
    }
    return tags
}

/// What ffprobe says of a file: its duration and its first audio stream's codec.
private struct Probe {
    var seconds: Double
    var codec: String
    var text: String

    init(_ path: String) throws {
        let result = try runProcess(
            "/usr/bin/env",
            [
                "ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_name",
                "-of", "default=nw=1", path,
            ])
        text = result.stdout + result.stderr
        let fields = Dictionary(
            text.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        seconds = Double(fields["duration"] ?? "") ?? -1
        codec = fields["codec_name"] ?? ""
    }
}
