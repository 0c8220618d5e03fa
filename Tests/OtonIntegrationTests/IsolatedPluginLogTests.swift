import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// An isolated plugin is announced once: by oton ("started in its own process"), not a second time
/// by the child process that hosts it (issue 38 §4).
final class IsolatedPluginLogTests: XCTestCase {
    func testAnIsolatedPluginIsAnnouncedOnce() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.share", "path": "\(TestPaths.pluginLibrary("OtonShare"))", "isolation": "process"}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        _ = try oton.connect()
        let stderr = oton.directory.file("stderr.log")
        func started() -> [String] {
            ((try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.contains("plugin org.oton.share ") && $0.contains(" started") }.map(String.init)
        }
        let deadline = Date().addingTimeInterval(60)
        while started().isEmpty, Date() < deadline { usleep(20_000) }
        // The child logs before it reports ready and oton logs after: a second line would be there by now.
        XCTAssertEqual(try oton.ctl(["status"]).status, 0)
        let lines = started()
        XCTAssertEqual(lines.count, 1, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.first?.contains("started in its own process") ?? false, lines.joined(separator: "\n"))
    }
}
