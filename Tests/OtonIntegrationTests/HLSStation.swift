import Foundation
import OtonTestSupport
import XCTest

/// Tests/Fixtures/hls_server.py on loopback: a live HLS radio station whose playlist window
/// slides with the clock (see the script's docstring). Killed when the test ends.
final class HLSStation: @unchecked Sendable {
    enum Shape: String {
        /// ADTS segments, each with a timed ID3 tag carrying the title.
        case packed
        /// MPEG-TS segments made by hlssink2, without titles.
        case ts
        /// MPEG-TS HLS written live by ffmpeg's hls muxer (the matrix's TS shape).
        case tsFFmpeg = "ts-ffmpeg"
        /// Packed audio in an EVENT playlist that ends with #EXT-X-ENDLIST after `--event-segments`.
        case event
        /// fMP4/CMAF HLS written live by ffmpeg.
        case fmp4
        /// Live DASH written by ffmpeg's `-f dash` (a dynamic MPD at /live.mpd).
        case dash
        /// On-demand DASH: 8 s written by ffmpeg before the server listens (a static MPD).
        case dashOnDemand = "dash-vod"
    }

    private let server: ScriptServer
    var port: UInt16 { server.port }

    /// `options`: more of the script's options, e.g. `["--big-tag-mb", "30"]`.
    init(_ testCase: XCTestCase, shape: Shape = .packed, options: [String] = []) throws {
        server = try ScriptServer(
            testCase, script: "hls_server.py", arguments: ["--shape", shape.rawValue, "--max-seconds", "240"] + options,
            readyPrefix: "READY ")
    }

    func url(_ path: String) -> String { server.url(path) }

    /// The paths requested so far, in order.
    var requests: [String] {
        server.printed.filter { $0.hasPrefix("GET ") }.map { String($0.dropFirst(4)) }
    }

    /// The User-Agent of every request so far, with its path, in order.
    var agents: [(path: String, userAgent: String)] {
        server.printed.filter { $0.hasPrefix("AGENT ") }.map { line in
            let parts = line.dropFirst(6).split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// How many segments have been fetched so far (under any variant).
    var segmentRequests: Int { requests.filter { $0.contains("/seg/") }.count }

    /// The largest DASH segment number fetched so far (`/seg/chunk-R-NNNNN.m4s`), nil before the first.
    var newestSegmentFetched: Int? {
        requests.compactMap { path -> Int? in
            guard path.hasPrefix("/seg/chunk-"), path.hasSuffix(".m4s") else { return nil }
            return path.dropLast(4).split(separator: "-").last.flatMap { Int($0) }
        }.max()
    }

    /// (dash) Waits until ffmpeg's window of 6 segments has slid: its MPD's SegmentTimeline no longer
    /// starts at 0 (`<S t="0"` is gone), the shape on which GStreamer 1.22's dashdemux lost its place.
    func waitForManifestWindowToSlide(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let result = try? runProcess("/usr/bin/env", ["curl", "-sf", "--max-time", "5", url("/live.mpd")]),
                result.status == 0, result.stdout.contains("<S t=\""), !result.stdout.contains("<S t=\"0\"")
            {
                return true
            }
            usleep(500_000)
        }
        return false
    }

    /// Waits until `count` more segments than now have been fetched.
    func waitForSegments(moreThan count: Int, timeout: TimeInterval = 15) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if segmentRequests > count { return true }
            usleep(50_000)
        }
        return false
    }

    /// Segments that appear from now on carry this title (timed ID3 in packed audio, #EXTINF always).
    func setTitle(artist: String, title: String) throws {
        try control("/control/title?artist=\(Self.escape(artist))&title=\(Self.escape(title))")
    }

    /// Every request answers 404 (the station is off the air), until ``startServing()``.
    func stopServing() throws { try control("/control/stop") }
    func startServing() throws { try control("/control/start") }

    private func control(_ path: String) throws {
        let result = try runProcess("/usr/bin/env", ["curl", "-sf", "--max-time", "5", url(path)])
        XCTAssertEqual(result.status, 0, "control request \(path) failed")
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
