import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The status API filling in what the stream lacks, hostile titles, and the media taps, on real pipelines.
final class StationStatusAndTapsTests: XCTestCase {
    /// A local MP3 file without tags: only the status API can name the track.
    private func untaggedMP3(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("untagged.mp3")
        let result = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=400", "!", "audioconvert",
                "!", "lamemp3enc", "!", "filesink", "location=\(path)",
            ])
        XCTAssertEqual(result.status, 0, result.stderr)
        return path
    }

    func testRadioCoStatusFillsTheTitleAndArtworkAndIsCacheBusted() throws {
        let directory = try TemporaryDirectory(self)
        let file = try untaggedMP3(directory)
        let status = """
            {"status":"online","current_track":{"title":"Кюннэй - Сахам сирэ","start_time":"2026-11-21T04:00:00+00:00",
             "artwork_url":"https://images.radio.co/covers/s.jpg","artwork_url_large":"https://images.radio.co/covers/l.jpg"},
             "logo_url":"https://images.radio.co/station_logos/s696f24a77.png","history":[]}
            """
        let http = try LocalHTTPServer.start(routes: ["/stations/x/status": .json(status)])
        defer { http.stop() }
        let harness = PlayerHarness(url: file, statusURL: http.url("/stations/x/status").absoluteString)
        harness.start()
        defer { harness.stop() }
        let track = try XCTUnwrap(harness.waitForTrack(title: "Сахам сирэ", artist: "Кюннэй"))
        XCTAssertEqual(track.field("artwork_url"), "https://images.radio.co/covers/l.jpg")
        let request = try XCTUnwrap(http.requests(path: "/stations/x/status").first)
        XCTAssertNotNil(request.query["_"], "a cache-busting parameter: \(request.target)")
        XCTAssertEqual(request.method, "GET")
    }

    func testALaggingStatusNeverReplacesTheHeardTitleAndItsCoverComesOnceItMatches() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("tagged.mp3")
        let made = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=1200", "!", "audioconvert",
                "!", "lamemp3enc", "!", "taginject", #"tags="title=\"Song One\",artist=\"Artist A\"""#,
                "!", "id3v2mux", "!", "filesink", "location=\(file)",
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let calls = LockedValue(0)
        let http = try LocalHTTPServer.start()
        defer { http.stop() }
        let logo = "https://img.example.com/station_logos/s.png"
        http.setHandler { request in
            guard request.path == "/stations/x/status" else { return nil }
            // The API lags the stream: the previous title twice, then the one playing.
            let call = calls.mutate { value -> Int in
                value += 1; return value
            }
            let (title, cover) =
                call <= 2
                ? ("Someone - Old Song", "https://img.example.com/old.png")
                : ("Artist A - Song One", "https://img.example.com/covers/one.png")
            return .json(#"{"status":"online","current_track":{"title":"\#(title)","artwork_url":"\#(cover)"},"logo_url":"\#(logo)"}"#)
        }
        let harness = PlayerHarness(url: file, statusURL: http.url("/stations/x/status").absoluteString)
        harness.start()
        defer { harness.stop() }
        let withCover = try XCTUnwrap(
            harness.events.wait(for: "track", timeout: 20) { $0.field("artwork_url") != nil },
            "the cover arrives once the status names the heard track")
        XCTAssertEqual(withCover.field("artwork_url"), "https://img.example.com/covers/one.png")
        XCTAssertEqual(withCover.field("station_logo_url"), logo)
        XCTAssertGreaterThanOrEqual(http.requests(path: "/stations/x/status").count, 3)
        let tracks = harness.trackEvents
        XCTAssertTrue(
            tracks.allSatisfy { $0.field("title") == "Song One" && $0.field("artist") == "Artist A" },
            "the status's older title never shows: \(tracks.map { $0.field("title") ?? "-" })")
        XCTAssertEqual(Set(tracks.map { $0.field("sequence") }), ["1"], "one heard track, one sequence")
        XCTAssertFalse(tracks.contains { $0.field("artwork_url") == "https://img.example.com/old.png" })
    }

    func testBrokenStatusBodyIsIgnoredAndPlaybackGoesOn() async throws {
        let directory = try TemporaryDirectory(self)
        let file = try untaggedMP3(directory)
        let http = try LocalHTTPServer.start(routes: ["/status": .html("<html>not json</html>")])
        defer { http.stop() }
        let harness = PlayerHarness(url: file, statusURL: http.url("/status").absoluteString)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForState("playing"))
        _ = try await http.waitForRequest(path: "/status", timeout: 10)
        XCTAssertTrue(harness.trackEvents.allSatisfy { $0.field("title") == nil })
        XCTAssertFalse(harness.events.events.contains { $0.field("state") == "error" })
        XCTAssertEqual(harness.player.state, .playing)
    }

    func testHostileTitlesAreCleanedAndPlaybackContinues() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/hostile.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = PlayerHarness(url: server.url(mount: "/hostile.mp3").absoluteString)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One"))
        // An ICY block holds at most 4080 bytes and the admin URL is limited too; 4 KiB titles are unit-tested.
        let long = String(repeating: "Ы", count: 300) + String(repeating: "x", count: 400)
        let sent = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/hostile.mp3", title: "Bad\u{01}\u{7F} Artist - \(long)")
        let track = try XCTUnwrap(harness.events.wait(for: "track", timeout: 5) { $0.monotonicNanoseconds > sent && $0.field("artist") == "Bad Artist" })
        let title = try XCTUnwrap(track.field("title"))
        XCTAssertLessThanOrEqual(title.count, 512, "capped")
        XCTAssertTrue(title.hasPrefix("ЫЫЫ"), String(title.prefix(40)))
        XCTAssertFalse(track.fields.contains { $0.value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
        let after = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/hostile.mp3", title: "-")
        try await server.setTitle(mount: "/hostile.mp3", title: "Artist C - Fine Again")
        XCTAssertNotNil(harness.waitForTrack(title: "Fine Again", timeout: 5, after: after))
        XCTAssertEqual(harness.player.state, .playing)
    }

    func testStreamTapCarriesTheEncodedBytesWithoutICYMetadataAndPCMTapItsFormat() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/tap.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = PlayerHarness(url: server.url(mount: "/tap.mp3").absoluteString)
        let media = MediaCollector(bus: harness.bus, taps: OTON_TAP_STREAM | OTON_TAP_PCM)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One"))
        // 40 s: on a loaded machine the player has been seen to stay in buffering until its 20 s
        // buffering timeout reconnects it (noted in the closing note; not understood yet).
        let streamBytes = try XCTUnwrap(media.waitForBytes(tap: OTON_TAP_STREAM, count: 64 * 1024, timeout: 40))
        XCTAssertNil(streamBytes.range(of: Data("StreamTitle=".utf8)), "ICY metadata is removed from the stream tap")
        XCTAssertTrue(media.caps(of: OTON_TAP_STREAM)?.hasPrefix("audio/mpeg") == true, media.caps(of: OTON_TAP_STREAM) ?? "no caps")
        XCTAssertEqual(media.firstFlags(of: OTON_TAP_STREAM).map { $0 & OTON_MEDIA_FLAG_NEW_CONNECTION }, OTON_MEDIA_FLAG_NEW_CONNECTION)
        // MP3 frames: a valid frame header (sync word 0xFFE) somewhere in the first bytes.
        XCTAssertTrue(zip(streamBytes, streamBytes.dropFirst()).prefix(4096).contains { $0 == 0xFF && $1 & 0xE0 == 0xE0 })

        _ = try XCTUnwrap(media.waitForBytes(tap: OTON_TAP_PCM, count: 44100 * 4, timeout: 40))
        let pcm = try XCTUnwrap(media.format(of: OTON_TAP_PCM))
        XCTAssertEqual(pcm.sampleFormat, OTON_SAMPLE_S16LE)
        XCTAssertEqual(pcm.rate, 44100)
        XCTAssertEqual(pcm.channels, 2)
        XCTAssertEqual(media.drops, 0, "a consumer that keeps up loses nothing")
    }
}

/// A bus subscriber that keeps the media it is given.
final class MediaCollector: MailboxConsumer, @unchecked Sendable {
    private let condition = NSCondition()
    private var bytes: [UInt32: Data] = [:]
    private var formats: [UInt32: MediaFormat] = [:]
    private var flags: [UInt32: UInt32] = [:]
    private(set) var drops: UInt64 = 0
    private let mailbox: Mailbox

    init(bus: PluginBus, taps: UInt32) {
        mailbox = bus.makeMailbox(for: "test.media")
        mailbox.start(consumer: self)
        bus.subscribe(id: "test.media", kinds: .only([]), taps: taps, mailbox: mailbox)
    }

    func deliver(event: FrozenEvent) {}

    func deliver(media: MediaPacket, extraFlags: UInt32) {
        condition.lock()
        bytes[media.tap, default: Data()].append(media.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: media.size)
        formats[media.tap] = media.format
        if flags[media.tap] == nil { flags[media.tap] = media.flags | extraFlags }
        condition.broadcast()
        condition.unlock()
    }

    func deliverDropNotice(_ counts: Mailbox.DropCounts) {
        condition.lock(); drops = counts.mediaBuffers; condition.unlock()
    }

    func waitForBytes(tap: UInt32, count: Int, timeout: TimeInterval = 15) -> Data? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock(); defer { condition.unlock() }
        while (bytes[tap]?.count ?? 0) < count {
            guard condition.wait(until: deadline) else { return nil }
        }
        return bytes[tap]
    }

    func caps(of tap: UInt32) -> String? { format(of: tap)?.caps }

    func format(of tap: UInt32) -> MediaFormat? {
        condition.lock(); defer { condition.unlock() }
        return formats[tap]
    }

    func firstFlags(of tap: UInt32) -> UInt32? {
        condition.lock(); defer { condition.unlock() }
        return flags[tap]
    }
}
