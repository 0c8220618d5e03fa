import Foundation
import OtonTestSupport
import XCTest

/// `oton play FILE` on an MP3 whose ID3v2 tag holds a cover (APIC): the artwork plugin shows that
/// cover (type "cover", its colour), and a cover over 10 MiB is refused with a log line.
final class EmbeddedCoverTests: XCTestCase {
    /// A 64×64 #204080 PNG made by GStreamer.
    private func png(_ directory: TemporaryDirectory) throws -> Data {
        let path = directory.file("cover.png")
        let made = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "pattern=solid-color",
                "foreground-color=0xff204080", "!", "video/x-raw,width=64,height=64", "!", "videoconvert",
                "!", "pngenc", "!", "filesink", "location=\(path)",
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Ten seconds of MP3 by GStreamer, behind an ID3v2.3 tag with a title and an APIC frame holding `picture`.
    private func mp3(_ directory: TemporaryDirectory, picture: Data, mime: String = "image/png") throws -> String {
        let plain = directory.file("plain.mp3")
        let made = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=430", "!", "audioconvert", "!",
                "lamemp3enc", "!", "filesink", "location=\(plain)",
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        func frame(_ id: String, _ body: Data) -> Data {
            let size = UInt32(body.count)
            return Data(id.utf8) + Data([UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF), 0, 0]) + body
        }
        let apic = Data([0]) + Data(mime.utf8) + Data([0, 3, 0]) + picture  // Latin-1, MIME, front cover, no description
        let frames = frame("TIT2", Data([3]) + Data("Covered Song".utf8)) + frame("APIC", apic)
        let size = frames.count  // syncsafe
        let header = Data("ID3".utf8) + Data([3, 0, 0, UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)])
        let path = directory.file("covered.mp3")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: header + frames + (try Data(contentsOf: URL(fileURLWithPath: plain)))))
        return path
    }

    /// Plays `file` headless with the artwork plugin until the first artwork.ready event; returns it and the log.
    private func play(_ file: String, _ directory: TemporaryDirectory) throws -> (artwork: [String: String]?, events: [[String: Any]], stderr: String) {
        let config = try directory.write(
            "plugins.json", #"{"stations": [], "plugins": [{"id": "org.oton.artwork", "path": "libOtonArtwork.so", "config": {"timeout_seconds": 2}}]}"#)
        let events = directory.file("events.jsonl")
        let log = directory.file("stderr.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["play", file, "--headless", "--config", config, "--events", events, "--instance", "cover"]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": directory.file("run"), "XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache")]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        func parsed() -> [[String: Any]] {
            ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        let deadline = Date().addingTimeInterval(40)
        var artwork: [String: String]?
        while Date() < deadline, process.isRunning, artwork == nil {
            artwork = parsed().first { $0["kind"] as? String == "org.oton.artwork.ready" }?["fields"] as? [String: String]
            if artwork == nil { usleep(50_000) }
        }
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, directory.read("stderr.log"))
        return (artwork, parsed(), directory.read("stderr.log"))
    }

    func testTheCoverInsideAnMP3IsTheTracksArtwork() throws {
        let directory = try TemporaryDirectory(self)
        let picture = try png(directory)
        let played = try play(try mp3(directory, picture: picture), directory)
        let artwork = try XCTUnwrap(played.artwork, played.stderr)
        XCTAssertEqual(artwork["type"], "cover", "\(artwork)")
        XCTAssertEqual(artwork["color"]?.uppercased(), "#204080", "\(artwork)")
        XCTAssertEqual(artwork["title"], "Covered Song")
        let path = try XCTUnwrap(artwork["path"])
        XCTAssertTrue(path.hasPrefix(directory.file("cache") + "/"), "only in the cache folder: \(path)")
        XCTAssertEqual(FileManager.default.contents(atPath: path), picture, "the embedded image, byte for byte")
        // The host wrote the embedded cover to its own cache folder, nowhere else, and named it in the track event.
        let covers = try FileManager.default.contentsOfDirectory(atPath: directory.file("cache/oton/embedded-covers"))
        XCTAssertEqual(covers.count, 1, "\(covers)")
        let track = played.events.first { $0["kind"] as? String == "track" }?["fields"] as? [String: String]
        XCTAssertEqual(track?["artwork_url"], URL(fileURLWithPath: directory.file("cache/oton/embedded-covers/" + covers[0])).absoluteString)
    }

    func testACoverOverTenMiBIsRefusedWithALogLine() throws {
        let directory = try TemporaryDirectory(self)
        var huge = try png(directory)
        huge.append(Data(repeating: 0x41, count: 11 << 20))
        let played = try play(try mp3(directory, picture: huge), directory)
        XCTAssertTrue(played.stderr.contains("the cover inside the stream is 11 MiB, over the 10 MiB an image may have; it is not shown"), played.stderr)
        let artwork = try XCTUnwrap(played.artwork, played.stderr)
        XCTAssertEqual(artwork["type"], "default", "no cover: the built-in picture")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("cache/oton/embedded-covers")), "nothing written")
    }
}
