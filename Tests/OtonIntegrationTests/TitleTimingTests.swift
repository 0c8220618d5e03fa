import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 54 §6: with timeshift (the default) titles follow the audio, and on low-bitrate stations they
/// came late, wrong or never (chained Vorbis at 32 kbit/s 1.2–4.4 s late with songs never announced,
/// Opus at 6 kbit/s one title in 40 s): a 4 KiB piece of the ring is seconds of such a stream, and a
/// server's burst brings several songs at once, of which the receiver kept the last title only.
///
/// A chained Ogg station (Tests/Fixtures/paced_ogg_source.py: a song of 4 s a chain, each a tone of its
/// own and a title of its own, the first 12 s as a burst) played by `oton play --audio-sink pulsesink`
/// into a PulseAudio null sink: each title's event (`--events`, CLOCK_MONOTONIC) is compared with the
/// moment its tone is heard at the sink (parec's recording, dated as PlayingWhenHeardTests dates it).
/// Every title must be announced, in order, within 0.3 s of its audio.
final class TitleTimingTests: XCTestCase {
    func testOpusAtSixKilobitsAnnouncesEveryTitleWithItsAudio() async throws {
        try await check(encoder: ["opusenc", "bitrate=6000"], rate: 48000, name: "Opus 6 kbit/s")
    }

    func testChainedVorbisAtThirtyTwoKilobitsAnnouncesEveryTitleWithItsAudio() async throws {
        try await check(encoder: ["vorbisenc", "bitrate=32000"], rate: 44100, name: "Vorbis 32 kbit/s")
    }

    static let songs = 8
    static func frequency(ofSong song: Int) -> Double { 400 + 150 * Double(song) }

    /// Hostile (issue 54): a title of 68 KB in an Ogg comment made PulseAudio drop the sink's connection
    /// ("no audio output is available", exit 3): titles are bounded before any sink sees them.
    func testAHugeTitleNeitherStopsTheSoundNorReachesAnyoneWhole() async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let directory = try TemporaryDirectory(self)
        let huge = "Song " + String(repeating: "Ж", count: 34 * 1024)  // 68 KiB of UTF-8
        let chained = try Self.chainedOgg(
            [(500, "Song 0"), (800, huge), (1100, "Song 2")], seconds: 6, encoder: ["vorbisenc"], rate: 44100, in: directory)
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let sink = SinkRecording(file: directory.file("monitor.raw"))
        try pulse.record(into: sink.file)
        let server = try ScriptServer(self, script: "paced_ogg_source.py", arguments: [chained, "0"])
        let oton = try OtonProcess(
            self, arguments: ["play", "http://127.0.0.1:\(server.port)/huge.ogg", "--audio-sink", "pulsesink", "--no-tui"],
            environment: ["PULSE_SERVER": pulse.environment["PULSE_SERVER"]])
        _ = try oton.connect(timeout: 30)
        _ = try sink.waitUntilPlaying(oton)
        // Through the huge title's song into the next: heard all along, and the title said cut.
        var title = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !title.hasPrefix("Song 2") {
            title = (try? oton.connect().send(["status"])["data"]?["title"]?.stringValue) ?? title
            if title.hasPrefix("Song Ж") { XCTAssertLessThanOrEqual(title.utf8.count, 4096, "the huge title is cut") }
            usleep(200_000)
        }
        XCTAssertEqual(title, "Song 2", "the song after the huge title is reached: \(oton.directory.read("stderr.log"))")
        let level = try sink.levelFromNow(settle: 0.5, seconds: 1)
        XCTAssertGreaterThan(level, 0.02, "still heard after it")
        XCTAssertTrue(oton.process.isRunning, "oton plays on: \(oton.directory.read("stderr.log"))")
        XCTAssertFalse(oton.directory.read("stderr.log").contains("No audio output"), oton.directory.read("stderr.log"))
    }

    /// A chained Ogg stream: a tone of `frequency` with `title` for each song, `seconds` each.
    static func chainedOgg(
        _ songs: [(frequency: Int, title: String)], seconds: Int, encoder: [String], rate: Int, in directory: TemporaryDirectory
    ) throws -> String {
        var stream = Data()
        for (index, song) in songs.enumerated() {
            let file = directory.file("song\(index).ogg")
            let made = try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "wave=sine", "freq=\(song.frequency)", "volume=0.3",
                    "num-buffers=\(seconds * 10)", "samplesperbuffer=\(rate / 10)", "!", "audio/x-raw,rate=\(rate),channels=1", "!",
                    "taginject", #"tags="artist=\"Artist\",title=\"\#(song.title)\"""#, "!",
                ] + encoder + ["!", "oggmux", "!", "filesink", "location=\(file)"])
            guard made.status == 0 else { throw FixtureError("gst-launch-1.0 could not make \(file): \(made.stderr.prefix(300))") }
            stream.append(try Data(contentsOf: URL(fileURLWithPath: file)))
        }
        let chained = directory.file("chained.ogg")
        try stream.write(to: URL(fileURLWithPath: chained))
        return chained
    }

    private func check(encoder: [String], rate: Int, name: String) async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let directory = try TemporaryDirectory(self)
        let chained = try Self.chainedOgg(
            (0..<Self.songs).map { (Int(Self.frequency(ofSong: $0)), "Song \($0)") }, seconds: 4, encoder: encoder, rate: rate, in: directory)
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let file = directory.file("monitor.raw")
        try pulse.record(into: file)
        let sink = try await DatedSinkRecording(pulse: pulse, file: file)
        defer { sink.stop() }

        let server = try ScriptServer(self, script: "paced_ogg_source.py", arguments: [chained, "12"])
        let events = directory.file("events.jsonl")
        let run = try OtonRun(
            self, ["play", "http://127.0.0.1:\(server.port)/paced.ogg", "--no-tui", "--audio-sink", "pulsesink", "--events", events],
            environment: ["PULSE_SERVER": try XCTUnwrap(pulse.environment["PULSE_SERVER"])])
        let last = "Song \(Self.songs - 1)"
        var lastSaid: Double?
        let deadline = DatedSinkRecording.now() + 120
        while DatedSinkRecording.now() < deadline {
            sink.look()
            if lastSaid == nil { lastSaid = Self.titles(in: events).first { $0.title == last }?.at }
            if let lastSaid, DatedSinkRecording.now() > lastSaid + 3 { break }
            usleep(5000)  // the measurement's sampling period (each look dates sample 0), not a wait
        }
        XCTAssertNotNil(lastSaid, "\(name): the last song is announced: \(run.stderr)")
        let titles = Self.titles(in: events)
        print("[measure] \(name): titles in order \(titles.map(\.title))")
        XCTAssertEqual(titles.map(\.title).filter { $0.hasPrefix("Song ") }, (0..<Self.songs).map { "Song \($0)" }, "\(name): every title, once, in order")
        let heard = HeardSound(file: file)
        let starts = Self.songStarts(heard.samples.map { Float($0) / 32768 }, rate: PulseAudioServer.rate)
        var errors: [Double] = []
        for song in 1..<Self.songs {
            guard let start = starts[song], let title = titles.first(where: { $0.title == "Song \(song)" }) else { continue }
            errors.append(title.at - sink.time(ofSample: start))
        }
        print("[measure] \(name): title minus its audio at the sink, s: \(errors.map { String(format: "%+.2f", $0) }.joined(separator: " "))")
        XCTAssertEqual(errors.count, Self.songs - 1, "\(name): every song's tone is heard")
        for (index, error) in errors.enumerated() {
            XCTAssertLessThanOrEqual(abs(error), 0.3, "\(name): Song \(index + 1)'s title within 0.3 s of its audio")
        }
    }

    /// The titles of the `--events` file's track events when each changed (monotonic seconds).
    private static func titles(in path: String) -> [(title: String, at: Double)] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var titles: [(title: String, at: Double)] = []
        for line in text.split(separator: "\n") where line.contains(#""kind":"track""#) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let fields = object["fields"] as? [String: Any], let title = fields["title"] as? String,
                let nanoseconds = (object["mono_ns"] as? NSNumber)?.int64Value
            else { continue }
            if titles.last?.title != title { titles.append((title, Double(nanoseconds) / 1e9)) }
        }
        return titles
    }

    /// Where each song's tone begins in `samples` (mono): the first of five 20 ms windows in a row whose
    /// zero crossings say that song's frequency.
    static func songStarts(_ samples: [Float], rate: Int) -> [Int: Int] {
        let window = rate / 50
        var songs: [Int?] = []
        for from in stride(from: 0, to: samples.count - window, by: window) {
            var crossings = 0
            for index in from + 1..<from + window where (samples[index - 1] < 0) != (samples[index] < 0) { crossings += 1 }
            let level = samples[from..<from + window].reduce(Float(0)) { max($0, abs($1)) }
            let hertz = Double(crossings) / 2 * 50
            let song = Int(((hertz - 400) / 150).rounded())
            songs.append(level > 0.05 && (0..<Self.songs).contains(song) && abs(hertz - frequency(ofSong: song)) < 60 ? song : nil)
        }
        var starts: [Int: Int] = [:]
        for index in 0..<max(0, songs.count - 5) {
            guard let song = songs[index], starts[song] == nil, songs[index..<index + 5].allSatisfy({ $0 == song }) else { continue }
            starts[song] = index * window
        }
        return starts
    }
}
