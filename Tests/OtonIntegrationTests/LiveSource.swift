import Foundation
import OtonTestSupport
import XCTest

/// Tests/Fixtures/live_source.py on loopback: a live MP3 station on a timeline of its own that
/// logs every byte it sends (sent-N.bin, sent-N.json per connection) and goes down on request.
final class LiveSource: @unchecked Sendable {
    let logDirectory: String
    private let server: ScriptServer
    var port: UInt16 { server.port }

    /// A station playing `file` (MP3, looped).
    init(_ testCase: XCTestCase, file: String, logDirectory: String, maxSeconds: Int = 240) throws {
        self.logDirectory = logDirectory
        try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
        server = try ScriptServer(testCase, script: "live_source.py", arguments: [file, logDirectory, String(maxSeconds)])
    }

    var url: String { "http://127.0.0.1:\(port)/live.mp3" }

    /// Closes every listener and answers 404 for `seconds` (the source is gone).
    func goDown(seconds: Double) {
        server.send("down \(seconds)")
    }

    /// Closes every listener and the listening socket (connections are refused, as when the server
    /// process dies), and listens again on the same port after `seconds`.
    func crash(seconds: Double) {
        server.send("crash \(seconds)")
    }

    /// The next `count` requests are closed at once without an answer (connections that yield nothing).
    func closeEmpty(_ count: Int) {
        server.send("empty \(count)")
    }

    /// When the server listened again after each ``crash(seconds:)`` (wall time).
    var upTimes: [Double] {
        let text = (try? String(contentsOfFile: logDirectory + "/up.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Double($0) }
    }

    /// What connection `number` (1, 2 …) was sent, the air time of its first frame, and when its request arrived.
    struct Connection {
        var bytes: [UInt8]
        var firstFrameAirTime: Double
        var frameSeconds: Double
        var accepted: Double
    }

    func connections() throws -> [Connection] {
        var result: [Connection] = []
        var number = 1
        while let data = FileManager.default.contents(atPath: logDirectory + "/sent-\(number).bin"),
            let meta = FileManager.default.contents(atPath: logDirectory + "/sent-\(number).json"),
            let fields = try JSONSerialization.jsonObject(with: meta) as? [String: Any],
            let first = fields["first_frame"] as? Int, let t0 = fields["t0"] as? Double, let frame = fields["frame_seconds"] as? Double
        {
            result.append(
                Connection(
                    bytes: [UInt8](data), firstFrameAirTime: t0 + Double(first) * frame, frameSeconds: frame,
                    accepted: fields["accepted"] as? Double ?? 0))
            number += 1
        }
        return result
    }

    /// An MP3 file of `seconds` of pink noise (every frame different), 128 kbit/s CBR at 44.1 kHz.
    static func makeFile(_ path: String, seconds: Double) throws {
        let buffers = Int(seconds * 44100 / 1024)
        let result = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=\(buffers)", "samplesperbuffer=1024",
                "wave=pink-noise", "volume=0.1", "!", "audio/x-raw,rate=44100,channels=2", "!", "audioconvert", "!",
                "lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true", "!", "filesink", "location=\(path)",
            ])
        guard result.status == 0 else { throw XCTSkip("cannot encode MP3 with gst-launch-1.0: \(result.stderr)") }
    }
}
