import Foundation
import OtonTestSupport
import XCTest

/// The codecs the light engine frames, each served at its own rate by the project's test server
/// and recorded with `--engine light --duration 10s`: every file decodes (gst-discoverer-1.0),
/// has the right extension, and lasts 10 ± 0.5 s (Ogg: 10 s up to one page more, since an Ogg
/// file is cut between pages, which oggmux fills with up to a second of audio).
final class LightEngineCodecTests: XCTestCase {
    struct Shape {
        let name: String
        /// gst-launch-1.0 elements between the tagged test tone and the file.
        let encoder: [String]
        let contentType: String
        let extensionName: String
        /// ICY metadata names the track for streams that have no tags of their own.
        let icy: Bool
    }

    static let shapes = [
        Shape(
            name: "mp3-id3", encoder: ["lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true", "!", "id3v2mux"],
            contentType: "audio/mpeg", extensionName: "mp3", icy: true),
        Shape(
            name: "adts", encoder: ["avenc_aac", "!", "aacparse", "!", "audio/mpeg,stream-format=adts"],
            contentType: "audio/aac", extensionName: "aac", icy: true),
        Shape(name: "vorbis", encoder: ["vorbisenc", "!", "oggmux"], contentType: "application/ogg", extensionName: "ogg", icy: false),
        Shape(
            name: "opus", encoder: ["audioresample", "!", "audio/x-raw,rate=48000", "!", "opusenc", "!", "oggmux"],
            contentType: "audio/ogg", extensionName: "opus", icy: false),
        Shape(name: "flac", encoder: ["flacenc", "!", "oggmux"], contentType: "audio/ogg", extensionName: "ogg", icy: false),
    ]

    func testEveryCodecIsRecordedByTheLightEngineForItsDuration() throws {
        let server = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        for shape in Self.shapes {
            let file = directory.file("\(shape.name).bin")
            let made = try runProcess(
                "/usr/bin/gst-launch-1.0",
                [
                    "-q", "audiotestsrc", "num-buffers=1300", "samplesperbuffer=1024", "wave=sine", "!",
                    "audio/x-raw,rate=44100,channels=2", "!", "audioconvert", "!",
                    "taginject", "tags=title=Song,artist=Band", "!",
                ]
                    + shape.encoder + ["!", "filesink", "location=\(file)"])
            XCTAssertEqual(made.status, 0, "\(shape.name): \(made.stderr)")
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            let rate = max(size / 30, 1)  // 30 s of audio, served at its own pace
            var path =
                "/file?path=\(file.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? file)&rate=\(rate)"
                + "&type=\(shape.contentType.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            if shape.icy { path += "&metaint=8192" }
            let recorder = try RecordHarness(self, url: server.url(path), extra: ["--engine", "light", "--duration", "10s", "--partial", "keep"])
            try recorder.start()
            XCTAssertEqual(recorder.waitForExit(timeout: 60), 0, "\(shape.name): \(recorder.stderr)")
            let files = recorder.files().filter { $0.hasSuffix("." + shape.extensionName) }
            XCTAssertEqual(files.count, 1, "\(shape.name): \(recorder.files()) \(recorder.stderr)")
            guard let recorded = files.first else { continue }
            let found = try Discovered.run(recorder.out + "/" + recorded)
            XCTAssertTrue(found.ok, "\(shape.name): \(found.text)")
            let seconds = found.seconds
            if shape.icy {
                XCTAssertEqual(seconds, 10, accuracy: 0.5, "\(shape.name): \(recorded) lasts what was asked")
            } else {
                XCTAssertGreaterThanOrEqual(seconds, 9.5, "\(shape.name): \(recorded) lasts what was asked")
                XCTAssertLessThanOrEqual(seconds, 11.6, "\(shape.name): \(recorded) stops within a page of it")
            }
            XCTAssertFalse(recorder.stderr.contains("GStreamer takes over"), "\(shape.name): the light engine recorded it: \(recorder.stderr)")
        }
    }
}
