import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The sink `oton plugins new` makes, in a real `oton play` of a real Icecast mount: the now-playing
/// file OBS reads holds the heard track and follows a title change, replaced whole each time.
final class GeneratedSinkRunTests: XCTestCase {
    func testTheGeneratedSinkWritesTheHeardTrackAndFollowsAChange() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let library = try GeneratedSink.makeSink(in: directory)
        let file = directory.file("now-playing.txt")
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.example.now-playing-file", "path": "\(library)", "config": {"file": "\(file)"}}]}
                """)
        _ = try oton.connect(timeout: 60)
        func contents() -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        func wait(for text: String) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while contents() != text, Date() < deadline { usleep(20_000) }
            return contents() == text
        }
        XCTAssertTrue(wait(for: "Artist A - Song One\n"), contents() + oton.directory.read("stderr.log"))
        try await server.setTitle(mount: "/live.mp3", title: "Artist B - Song Two")
        XCTAssertTrue(wait(for: "Artist B - Song Two\n"), contents())
        XCTAssertFalse(FileManager.default.fileExists(atPath: file + ".tmp"), "the temporary file was renamed over it")
    }
}

/// Builds the sink `oton plugins new` makes, against the SDK folder of PluginSDKFolder.
enum GeneratedSink {
    static func makeSink(in directory: TemporaryDirectory) throws -> String {
        XCTAssertEqual(try runProcess(TestPaths.oton, ["plugins", "new", "now-playing-file", "--into", directory.path]).status, 0)
        var environment = ProcessInfo.processInfo.environment
        environment["PKG_CONFIG_PATH"] = try PluginSDKFolder.make(in: directory)
        let build = try runProcess("/usr/bin/env", ["make", "-C", directory.file("now-playing-file")], environment: environment)
        XCTAssertEqual(build.status, 0, build.stderr)
        return directory.file("now-playing-file/libnow_playing_file.so")
    }
}
