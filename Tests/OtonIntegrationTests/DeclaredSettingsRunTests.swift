import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Declared settings in a real `oton play` of a real Icecast mount (issue 38 §2): a typo in a C
/// plugin's config stops that plugin before create() — in process and isolated — with the reason and
/// a "did you mean", and playback goes on; the corrected config starts it.
final class DeclaredSettingsRunTests: XCTestCase {
    func testATypoStopsThePluginBeforeCreateAndPlaybackGoesOn() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/settings_plugin.c", into: directory, name: "settings")
        for isolated in [false, true] {
            let created = directory.file("created-\(isolated).txt")
            func plugins(_ config: String) -> String {
                """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.oton.test.settings", "path": "\(library)", "config": \(config)\(isolated ? #", "isolation": "process""# : "")}]}
                """
            }
            let typo = try OtonProcess(
                self, arguments: ["play", "Test FM", "--headless"],
                plugins: plugins(#"{"file": "\#(created)", "fromat": "json"}"#))
            _ = try typo.connect(timeout: 60)
            let stderr = typo.directory.file("stderr.log")
            func log() -> String { (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "" }
            let deadline = Date().addingTimeInterval(60)
            while !log().contains("org.oton.test.settings"), Date() < deadline { usleep(20_000) }
            XCTAssertTrue(log().contains("was not started: its config does not match the settings it declares"), "isolated \(isolated):\n\(log())")
            XCTAssertTrue(log().contains(#"config.fromat is not a setting; did you mean "format"?"#), log())
            XCTAssertFalse(FileManager.default.fileExists(atPath: created), "create() was never called (isolated \(isolated))")
            XCTAssertTrue(typo.process.isRunning, "oton goes on without the plugin")
            typo.process.terminate()
            typo.process.waitUntilExit()

            let fixed = try OtonProcess(
                self, arguments: ["play", "Test FM", "--headless"],
                plugins: plugins(#"{"file": "\#(created)", "format": "json"}"#))
            _ = try fixed.connect(timeout: 60)
            let started = Date().addingTimeInterval(60)
            while !FileManager.default.fileExists(atPath: created), Date() < started { usleep(20_000) }
            XCTAssertTrue(
                (try? String(contentsOfFile: created, encoding: .utf8))?.contains(#""format":"json""#) ?? false,
                "create() got the config (isolated \(isolated))")
            fixed.process.terminate()
            fixed.process.waitUntilExit()
        }
    }
}
