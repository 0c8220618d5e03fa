import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record` of an https:// station: Icecast behind a TLS front on loopback with a throwaway certificate.
final class RecordingOverHTTPSTests: XCTestCase {
    func testHTTPSStationIsRecordedAndSplitWhenItsCertificateIsTrusted() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/tls.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let proxy = try TLSProxy(self, upstreamPort: server.port)
        let harness = try RecordHarness(self, url: proxy.url(mount: "/tls.mp3"), environment: ["SSL_CERT_FILE": proxy.certificate])
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        XCTAssertNotNil(harness.waitForEvent("track") { $0["title"] == "Song One" }, "ICY titles arrive through TLS")
        try await Task.sleep(nanoseconds: 2_000_000_000)
        try await server.setTitle(mount: "/tls.mp3", title: "Artist B - Song Two")
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 10) { $0["title"] == "Song Two" }, harness.stderr)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        XCTAssertEqual(
            harness.files(),
            [
                "Oton Test FM/incomplete/Artist A - Song One.mp3", "Oton Test FM/incomplete/Artist B - Song Two.mp3", "index.json",
            ], harness.stderr)
        for file in harness.files() where file.hasSuffix(".mp3") {
            let found = try Discovered.run(harness.out + "/" + file)
            XCTAssertTrue(found.ok, found.text)
            XCTAssertGreaterThan(found.seconds, 1, file)
        }
        XCTAssertEqual(Set(proxy.handshakes), ["HANDSHAKE ok"], "it really went through TLS")
    }

    func testAnUntrustedCertificateIsRefusedWithAClearError() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/tls.mp3", format: .mp3)
        let proxy = try TLSProxy(self, upstreamPort: server.port)
        let harness = try RecordHarness(self, url: proxy.url(mount: "/tls.mp3"), extra: ["--retries", "0"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 30), 3, harness.stderr)
        XCTAssertTrue(harness.stderr.contains("secure connection (HTTPS) could not be verified"), harness.stderr)
        XCTAssertTrue(harness.stderr.contains("SSL_CERT_FILE"), harness.stderr)
        XCTAssertEqual(harness.files(), [], "nothing recorded from a server that could not be verified")
        XCTAssertTrue(proxy.handshakes.allSatisfy { $0.hasPrefix("HANDSHAKE failed") }, "\(proxy.handshakes)")
    }
}
