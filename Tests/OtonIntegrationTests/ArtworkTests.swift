import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The artwork plugin through the ABI against a local HTTP server that serves
/// images, good and hostile. (The status API is the host's: see StationStatusAndTapsTests.)
final class ArtworkTests: XCTestCase {
    /// Images made by GStreamer's encoders: a solid #204080 PNG, a solid JPEG, a 5000×5000 PNG.
    struct Images {
        let png: Data, jpeg: Data, huge: Data
    }

    static func makeImages(_ directory: TemporaryDirectory) throws -> Images {
        func encode(_ name: String, color: String, width: Int, height: Int, encoder: String) throws -> Data {
            let path = directory.file(name)
            let result = try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "pattern=solid-color",
                    "foreground-color=\(color)", "!", "video/x-raw,width=\(width),height=\(height)",
                    "!", "videoconvert", "!", encoder, "!", "filesink", "location=\(path)",
                ])
            guard result.status == 0 else { throw NSError(domain: "gst", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return Images(
            png: try encode("a.png", color: "0xff204080", width: 64, height: 64, encoder: "pngenc"),
            jpeg: try encode("b.jpg", color: "0xff808080", width: 64, height: 48, encoder: "jpegenc"),
            huge: try encode("huge.png", color: "0xff204080", width: 5000, height: 5000, encoder: "pngenc"))
    }

    static func image(_ data: Data, _ type: String) -> CannedResponse {
        CannedResponse(headers: ["Content-Type": type], body: data)
    }

    static func status(title: String, artwork: String?, logo: String) -> CannedResponse {
        let art = artwork.map { #""artwork_url":"\#($0)","artwork_url_large":"\#($0)","# } ?? ""
        return .json(
            #"{"status":"online","current_track":{\#(art)"title":"\#(title)","start_time":"2026-11-21T04:00:00+00:00"},"logo_url":"\#(logo)","history":[]}"#)
    }

    private func startArtwork(_ bus: PluginBus, _ directory: TemporaryDirectory, cache: String, timeout: Double = 2) throws -> PluginManager {
        let manager = PluginManager(
            bus: bus, requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.artwork", path: TestPaths.pluginLibrary("OtonArtwork"), enabled: true,
                config: .object(["cache_dir": .string(cache), "timeout_seconds": .number(timeout)]),
                location: "plugins[0]")
        ])
        guard case .running = reports.first?.status else {
            manager.shutdown()
            throw XCTSkip("artwork did not start: \(reports)")
        }
        return manager
    }

    private func publishTrack(
        _ bus: PluginBus, sequence: UInt64, title: String, artist: String = "Artist A",
        artworkURL: String? = nil, extra: [(key: String, value: String)]
    ) {
        var event = BusEvent.track(
            TrackInfo(
                title: title, artist: artist, rawTitle: "\(artist) - \(title)", station: "Oton FM",
                artworkURL: artworkURL.flatMap(URL.init(string:))), sequence: sequence)
        event.extraFields = extra
        bus.publish(event)
    }

    private func artwork(_ collector: EventCollector, sequence: UInt64, timeout: TimeInterval = 10) -> BusEvent? {
        collector.wait(for: OTON_EVENT_NAME_ARTWORK_READY, timeout: timeout) { $0.field("sequence") == String(sequence) }
    }

    func testTheHostsCoverIsFetchedOnceThenServedFromMemoryAndDisk() throws {
        let directory = try TemporaryDirectory(self)
        let images = try Self.makeImages(directory)
        let http = try LocalHTTPServer.start(routes: [
            "/covers/a.png": Self.image(images.png, "image/png"),
            "/station_logos/logo.jpg": Self.image(images.jpeg, "image/jpeg"),
        ])
        defer { http.stop() }
        let cover = http.url("/covers/a.png").absoluteString
        let logo = http.url("/station_logos/logo.jpg").absoluteString
        let cache = directory.file("artwork")
        let bus = PluginBus()
        let collector = EventCollector(bus: bus, id: "test.collector")
        let manager = try startArtwork(bus, directory, cache: cache)
        // A status URL on the event is the host's business now: the plugin never asks it.
        publishTrack(
            bus, sequence: 1, title: "Song One", artworkURL: cover,
            extra: [("station_logo_url", logo), ("station_status_url", http.url("/stations/x/status").absoluteString)])
        let ready = try XCTUnwrap(artwork(collector, sequence: 1))
        XCTAssertEqual(ready.field("type"), "cover")
        XCTAssertEqual(ready.field("url"), cover)
        XCTAssertEqual(ready.field("color"), "#204080")
        XCTAssertEqual(ready.field("title"), "Song One")
        XCTAssertEqual(ready.source, "org.oton.artwork")
        let path = try XCTUnwrap(ready.field("path"))
        XCTAssertTrue(path.hasPrefix(cache + "/") && path.hasSuffix(".png"), path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), images.png, "the cached file is the image as served")
        XCTAssertEqual(http.requests(path: "/stations/x/status").count, 0, "the plugin does not poll the status API")

        // The host learns the logo later: the same track without a cover gets the logo.
        publishTrack(bus, sequence: 2, title: "Song Two", extra: [])
        XCTAssertEqual(artwork(collector, sequence: 2)?.field("type"), "default")
        publishTrack(bus, sequence: 2, title: "Song Two", extra: [("station_logo_url", logo)])
        let logoReady = try XCTUnwrap(
            collector.wait(for: OTON_EVENT_NAME_ARTWORK_READY, timeout: 10) {
                $0.field("sequence") == "2" && $0.field("type") == "station-logo"
            })
        XCTAssertEqual(logoReady.field("url"), logo)

        // The next track has the same cover: served from memory, no request.
        publishTrack(bus, sequence: 3, title: "Song One (Reprise)", artworkURL: cover, extra: [])
        XCTAssertEqual(artwork(collector, sequence: 3)?.field("path"), path)
        manager.shutdown()

        // A new instance (a new oton) finds it on disk.
        let bus2 = PluginBus()
        let collector2 = EventCollector(bus: bus2, id: "test.collector")
        let manager2 = try startArtwork(bus2, directory, cache: cache)
        defer { manager2.shutdown() }
        publishTrack(bus2, sequence: 1, title: "Song One (Again)", artworkURL: cover, extra: [])
        let again = try XCTUnwrap(artwork(collector2, sequence: 1))
        XCTAssertEqual(again.field("path"), path)
        XCTAssertEqual(again.field("color"), "#204080")
        XCTAssertEqual(http.requests(path: "/covers/a.png").count, 1, "cached images are served without the network")
    }

    func testHostileImagesFallBackToTheStationLogoAndThenToTheDefault() throws {
        let directory = try TemporaryDirectory(self)
        let images = try Self.makeImages(directory)
        var huge = Data([0xFF, 0xD8, 0xFF, 0xE0])
        huge.append(Data(count: 11 << 20))
        let http = try LocalHTTPServer.start(routes: [
            "/station_logos/logo.jpg": Self.image(images.jpeg, "image/jpeg"),
            "/truncated.jpg": Self.image(images.jpeg.prefix(images.jpeg.count / 2), "image/jpeg"),
            "/truncated.png": Self.image(images.png.prefix(images.png.count - 40), "image/png"),
            "/dimensions.png": Self.image(images.huge, "image/png"),
            "/page.jpg": .html("<html><body>Not an image</body></html>"),
            "/eleven-megabytes.jpg": Self.image(huge, "image/jpeg"),
            "/gone.png": .notFound,
        ])
        defer { http.stop() }
        http.setHandler { request in
            switch request.path {
            case "/loop.png": return CannedResponse(status: 302, headers: ["Location": "/loop.png"])
            case "/slow.png":
                Thread.sleep(forTimeInterval: 4)  // the server that never answers in time
                return Self.image(images.png, "image/png")
            default: return nil
            }
        }
        let logo = http.url("/station_logos/logo.jpg").absoluteString
        let bus = PluginBus()
        let collector = EventCollector(bus: bus, id: "test.collector")
        let manager = try startArtwork(bus, directory, cache: directory.file("artwork"), timeout: 1)
        defer { manager.shutdown() }

        let hostile = ["/truncated.jpg", "/truncated.png", "/dimensions.png", "/page.jpg", "/eleven-megabytes.jpg", "/gone.png", "/loop.png", "/slow.png"]
        for (index, path) in hostile.enumerated() {
            let sequence = UInt64(index + 1)
            let started = Date()
            publishTrack(
                bus, sequence: sequence, title: "Song \(sequence)", artworkURL: http.url(path).absoluteString,
                extra: [("station_logo_url", logo)])
            let ready = try XCTUnwrap(artwork(collector, sequence: sequence), path)
            XCTAssertEqual(ready.field("type"), "station-logo", path)
            XCTAssertEqual(ready.field("url"), logo, path)
            XCTAssertLessThan(Date().timeIntervalSince(started), 3, "\(path): bounded by the 1 s timeout")
        }
        XCTAssertEqual(http.requests(path: "/loop.png").count, 6, "the first request and 5 redirects, then curl stops")

        // A cover under the station-logo path counts as the logo.
        publishTrack(bus, sequence: 20, title: "Oton FM", artworkURL: logo, extra: [])
        XCTAssertEqual(artwork(collector, sequence: 20)?.field("type"), "station-logo")

        // Nothing usable at all: the built-in default.
        publishTrack(
            bus, sequence: 21, title: "Song 21", artworkURL: http.url("/page.jpg").absoluteString,
            extra: [("station_logo_url", http.url("/gone.png").absoluteString)])
        let fallback = try XCTUnwrap(artwork(collector, sequence: 21))
        XCTAssertEqual(fallback.field("type"), "default")
        XCTAssertNotNil(fallback.field("color")?.wholeMatch(of: #/#[0-9A-F]{6}/#), "the built-in picture's average colour")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fallback.field("path") ?? ""))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.file("artwork")).filter { $0.hasPrefix(".download") }
        XCTAssertEqual(leftovers, [], "rejected downloads are removed")
    }
}
