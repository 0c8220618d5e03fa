import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// One contract, two engines (issue 34 §2; docs/architecture.md, "Walk 1"): the same stations on the
/// same loopback servers, asked the same questions, give the same answers from GStreamer's pipeline
/// and from the light engine — titles, reconnects, and the kind of every failure.
final class EngineConformanceTests: XCTestCase {
    private static let engines: [EngineChoice] = [.light, .gstreamer]
    private var harnesses: [PlayerHarness] = []

    override func tearDown() {
        harnesses.forEach { $0.stop() }
        harnesses = []
    }

    private func record(_ url: String, on engine: EngineChoice, retries: Int? = 0) -> PlayerHarness {
        let harness = PlayerHarness(url: url, retries: retries, recording: engine)
        harnesses.append(harness)
        harness.start()
        return harness
    }

    /// The failure the player gave up on, in the words its state event says it (each kind has its own).
    private func failure(_ url: String, on engine: EngineChoice) throws -> String? {
        let harness = record(url, on: engine)
        let failed = try XCTUnwrap(harness.waitForState("error", timeout: 30) { $0.field(OTON_FIELD_RETRY_ATTEMPT) == nil }, "\(engine): \(url)")
        return failed.field(OTON_FIELD_ERROR_MESSAGE)
    }

    func testTheTitleAndItsChangeArriveOnBothEngines() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/both.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Both FM")
        for engine in Self.engines {
            let harness = record(server.url(mount: "/both.mp3").absoluteString, on: engine, retries: nil)
            XCTAssertNotNil(harness.waitForTrack(title: "Song One", artist: "Artist A", timeout: 15), "\(engine): the title at connect")
            XCTAssertNotNil(harness.waitForState("playing"), "\(engine)")
            XCTAssertEqual(harness.player.snapshot.engine, engine == .light ? .light : .gstreamer)
        }
        let sent = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/both.mp3", title: "Artist B - Song Two")
        for (engine, harness) in zip(Self.engines, harnesses) {
            let changed = try XCTUnwrap(harness.waitForTrack(title: "Song Two", artist: "Artist B", timeout: 10, after: sent), "\(engine)")
            XCTAssertEqual(changed.field(OTON_FIELD_SEQUENCE), "2", "\(engine): one new track, not two")
            XCTAssertEqual(changed.field(OTON_FIELD_STATION), "Both FM", "\(engine): the station's icy-name")
            XCTAssertNotNil(changed.field(OTON_FIELD_TAG_MONO_NS), "\(engine): when the title was read, for plugins to place it")
        }
    }

    func testALostSourceIsAReconnectOnBothEngines() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let source = try await server.startSource(mount: "/lost.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        for engine in Self.engines {
            XCTAssertNotNil(record(server.url(mount: "/lost.mp3").absoluteString, on: engine, retries: nil).waitForState("playing"), "\(engine)")
        }
        let killed = Clock.monotonicNanoseconds()
        source.kill()
        for (engine, harness) in zip(Self.engines, harnesses) {
            let reconnecting = harness.waitForState("error", timeout: 30, after: killed) { $0.field(OTON_FIELD_RETRY_ATTEMPT) == "1" }
            XCTAssertNotNil(reconnecting, "\(engine): a lost stream says a reconnect is under way")
            XCTAssertNotNil(reconnecting?.field(OTON_FIELD_RETRY_IN_MS), "\(engine)")
        }
    }

    func testHTTPRefusalsMapToTheSameKindsOnBothEngines() throws {
        let http = try LocalHTTPServer.start(routes: [
            "/gone.mp3": .text("not here", status: 404),
            "/private.mp3": .text("no", status: 403),
            "/broken.mp3": .text("oops", status: 503),
        ])
        defer { http.stop() }
        let expected: [(String, PlaybackErrorKind)] = [
            ("/gone.mp3", .streamUnavailable(reason: .notFound)), ("/private.mp3", .streamUnavailable(reason: .notAuthorized)),
            ("/broken.mp3", .streamUnavailable(reason: .serverError(status: 503))),
        ]
        for engine in Self.engines {
            for (path, kind) in expected {
                XCTAssertEqual(try failure(http.url(path).absoluteString, on: engine), kind.message, "\(engine) \(path)")
            }
        }
    }

    func testNobodyListeningAndAnUntrustedCertificateMapAlikeOnBothEngines() throws {
        let closed = "http://127.0.0.1:\(try FreePort.allocate())/nobody.mp3"
        let upstream = try LocalHTTPServer.start(routes: ["/tls.mp3": CannedResponse(headers: ["Content-Type": "audio/mpeg"], body: Data(count: 4096))])
        defer { upstream.stop() }
        let proxy = try TLSProxy(self, upstreamPort: upstream.port)  // a self-signed certificate nobody trusts here
        for engine in Self.engines {
            // Nothing listens: the connection is refused, which names the server (issue 37 §6), alike on both engines.
            XCTAssertEqual(try failure(closed, on: engine), PlaybackErrorKind.streamUnavailable(reason: .refused).message, "\(engine)")
            XCTAssertEqual(
                try failure(proxy.url(mount: "/tls.mp3"), on: engine),
                PlaybackErrorKind.streamUnavailable(reason: .secureConnectionFailed).message, "\(engine)")
        }
    }
}
