import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Credentials never cross origins: a scrobbling service that redirects to
/// another origin (here: another port on 127.0.0.1) gets an error, and the
/// other origin gets nothing; a redirect within the service's origin is
/// followed with the credential, at most 5 times.
final class ScrobbleRedirectTests: XCTestCase {
    private var service: FakeScrobbleService!
    /// A second origin: the place a hostile or misconfigured service points to.
    private var elsewhere: FakeScrobbleService!
    private var harnesses: [HistoryPluginHarness] = []

    override func setUp() async throws {
        service = try FakeScrobbleService()
        elsewhere = try FakeScrobbleService()
    }

    override func tearDown() async throws {
        harnesses.forEach { $0.shutdown() }
        harnesses = []
        service.stop()
        elsewhere.stop()
        XCTAssertEqual(service.violations + elsewhere.violations, [], "requests that break the services' documentation")
    }

    private func secretFile(_ directory: TemporaryDirectory, _ name: String, _ value: String) throws -> String {
        let path = try directory.write(name, value + "\n")
        chmod(path, 0o600)
        return path
    }

    private func listenBrainz(url: String) throws -> HistoryPluginHarness {
        let directory = try TemporaryDirectory(self)
        let token = try secretFile(directory, "lb.token", FakeScrobbleService.token)
        let harness = try HistoryPluginHarness(
            self,
            config: """
                {"min_live_seconds": 5, "retry_initial_seconds": 0.2, "retry_max_seconds": 1,
                 "listenbrainz": {"url": "\(url)", "token_file": "\(token)"}}
                """, directory: directory)
        harnesses.append(harness)
        return harness
    }

    private func lastFM(url: String) throws -> HistoryPluginHarness {
        let directory = try TemporaryDirectory(self)
        let key = try secretFile(directory, "lastfm.key", FakeScrobbleService.apiKey)
        let secret = try secretFile(directory, "lastfm.secret", FakeScrobbleService.apiSecret)
        let session = try secretFile(directory, "lastfm.session", FakeScrobbleService.sessionKey)
        let harness = try HistoryPluginHarness(
            self,
            config: """
                {"min_live_seconds": 5, "retry_initial_seconds": 0.2, "retry_max_seconds": 1,
                 "lastfm": {"url": "\(url)", "api_key_file": "\(key)", "api_secret_file": "\(secret)", "session_key_file": "\(session)"}}
                """, directory: directory)
        harnesses.append(harness)
        return harness
    }

    /// One qualifying listen (6 s of a track ended by the next title), then the next track playing.
    private func listen(_ harness: HistoryPluginHarness) {
        harness.state(.playing)
        harness.track(1, artist: "Artist 1", title: "Song 1")
        harness.advance(seconds: 6)
        harness.track(2, artist: "Artist 2", title: "Song 2")
        harness.drain()
    }

    private var elsewhereOrigin: String { "http://127.0.0.1:\(elsewhere.server.port)" }

    func testListenBrainzTokenIsNotSentToAnotherOrigin() throws {
        service.redirect("/1/submit-listens", to: elsewhere.baseURL + "/1/submit-listens")
        let harness = try listenBrainz(url: service.baseURL)
        listen(harness)
        XCTAssertTrue(
            service.wait(timeout: 10) {
                harness.log.all.contains { $0.contains("redirected to another host (\(self.elsewhereOrigin))") }
                    && self.service.server.requests(path: "/1/submit-listens").count >= 3
            }, "\(harness.log.all)")
        XCTAssertEqual(elsewhere.server.requests.count, 0, "the other origin received nothing, so no Authorization header")
        XCTAssertEqual(try harness.sql("SELECT status FROM scrobble_journal"), ["pending"], "the listen is kept")
        let log = harness.log.all.joined(separator: "\n")
        XCTAssertTrue(log.contains("the request and its token were not sent there"), log)
        XCTAssertFalse(log.contains(FakeScrobbleService.token), "the token never reaches the log")
        XCTAssertFalse(log.contains("/1/submit-listens"), "only the target's origin is named, not its path")
    }

    func testListenBrainzFollowsARedirectWithinItsOrigin() throws {
        service.redirect("/moved/1/submit-listens", to: "/1/submit-listens")
        let harness = try listenBrainz(url: service.baseURL + "/moved")
        listen(harness)
        XCTAssertTrue(service.wait(timeout: 10) { self.service.singles.count == 1 }, "\(harness.log.all)")
        XCTAssertEqual(service.singles.first?.title, "Song 1")
        XCTAssertEqual(try harness.sql("SELECT status FROM scrobble_journal"), ["sent"])
        let authorized = service.server.requests(path: "/1/submit-listens").map { $0.headers["authorization"] }
        XCTAssertTrue(!authorized.isEmpty && authorized.allSatisfy { $0 == "Token \(FakeScrobbleService.token)" }, "\(authorized)")
    }

    func testARedirectLoopWithinTheOriginGivesUpAfterFiveHops() throws {
        service.redirect("/loop/1/submit-listens", to: "/loop/1/submit-listens")
        let harness = try listenBrainz(url: service.baseURL + "/loop")
        listen(harness)
        XCTAssertTrue(
            service.wait(timeout: 10) { harness.log.all.contains { $0.contains("redirected more than 5 times") } },
            "\(harness.log.all)")
        harness.shutdown()
        harnesses = []
        let sent = service.server.requests(path: "/loop/1/submit-listens").count
        XCTAssertGreaterThan(sent, 0)
        XCTAssertEqual(sent % 6, 0, "each attempt is the request plus 5 redirects followed, never more")
    }

    func testLastFMKeysAreNotSentToAnotherOrigin() throws {
        service.redirect("/2.0/", to: elsewhere.lastFMURL)
        let harness = try lastFM(url: service.lastFMURL)
        listen(harness)
        XCTAssertTrue(
            service.wait(timeout: 10) {
                harness.log.all.contains { $0.contains("redirected to another host (\(self.elsewhereOrigin))") }
                    && self.service.server.requests(path: "/2.0/").count >= 3
            }, "\(harness.log.all)")
        XCTAssertEqual(elsewhere.server.requests.count, 0, "the other origin received no api_key and no sk")
        XCTAssertEqual(try harness.sql("SELECT status FROM scrobble_journal"), ["pending"])
        let log = harness.log.all.joined(separator: "\n")
        for secret in [FakeScrobbleService.apiKey, FakeScrobbleService.apiSecret, FakeScrobbleService.sessionKey] {
            XCTAssertFalse(log.contains(secret), "no credential in the log")
        }
    }

    func testLastFMLoginRefusesACrossOriginRedirect() throws {
        service.redirect("/2.0/", to: elsewhere.lastFMURL)
        let harness = try lastFM(url: service.lastFMURL)
        let reply = try XCTUnwrap(harness.command("lastfm-login", ["start"]))
        XCTAssertFalse(reply.ok)
        XCTAssertTrue(reply.text.contains("redirected to another host (\(elsewhereOrigin))"), reply.text)
        XCTAssertFalse(reply.text.contains(FakeScrobbleService.apiKey), reply.text)
        XCTAssertEqual(elsewhere.server.requests.count, 0)
    }
}
