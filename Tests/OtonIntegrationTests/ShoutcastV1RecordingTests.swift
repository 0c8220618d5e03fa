import Foundation
import OtonTestSupport
import XCTest

/// Issue 39 §3: a SHOUTcast v1 server answers `ICY 200 OK`, which libcurl reads as an HTTP/0.9 body.
/// The light engine recorded one "Unknown artist - Unknown title.mp3" with the `StreamTitle='…'`
/// blocks inside the audio and no station name; GStreamer's playback of the same URL was right, and
/// streamripper records it. Now it is recorded as an Icecast station is: titles split, no metadata in
/// the audio, the station named by its icy-name.
final class ShoutcastV1RecordingTests: XCTestCase {
    func testASHOUTcastV1StreamIsRecordedByTitleWithoutItsMetadataInTheAudio() throws {
        let server = try HostileServer(self, maxSeconds: 120)
        let recorder = try RecordHarness(self, url: server.url("/shoutcast-v1"), extra: ["--engine", "light", "--duration", "10s", "--partial", "keep"])
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 60), 0, recorder.stderr)
        let tracks = recorder.events.filter { ($0["kind"] as? String) == "track" }.map(recorder.fields)
        XCTAssertTrue(tracks.contains { $0["title"] == "Song One" && $0["artist"] == "Artist A" }, "\(tracks)")
        XCTAssertTrue(tracks.contains { $0["title"] == "Song Two" && $0["artist"] == "Artist B" }, "\(tracks)")
        XCTAssertTrue(tracks.contains { $0["station"] == "Shoutcast One" }, "the icy-name names the station: \(tracks)")
        let files = recorder.files().filter { $0.hasSuffix(".mp3") }
        print("[measure] SHOUTcast v1 recorded as \(files)")
        XCTAssertTrue(files.contains { $0.hasSuffix("Artist A - Song One.mp3") }, "\(files)")
        XCTAssertTrue(files.contains { $0.hasSuffix("Artist B - Song Two.mp3") }, "\(files)")
        XCTAssertTrue(files.allSatisfy { $0.hasPrefix("Shoutcast One/") }, "the folder is the icy-name, not 127.0.0.1: \(files)")
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: recorder.out + "/" + file))
            XCTAssertNil(bytes.range(of: Data("StreamTitle".utf8)), "\(file): no ICY metadata inside the audio")
            XCTAssertNil(bytes.range(of: Data("icy-".utf8)), "\(file): no header block inside the audio")
        }
    }
}
