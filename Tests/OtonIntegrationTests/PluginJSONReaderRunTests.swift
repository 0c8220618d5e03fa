import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// ABI 1.5's read_json in a real `oton play` of a real Icecast mount: a C plugin with no JSON code
/// of its own (Tests/Fixtures/json_reader_plugin.c) reads its plugins.json config and the arguments
/// of a real `oton ctl` command, in oton's process and in an isolated one (where the child's table
/// reads them: the config travels on its command line, the arguments with each command).
final class PluginJSONReaderRunTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private func run(isolation: String?) async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/json_reader_plugin.c", into: directory, name: "reader")
        let isolationKey = isolation.map { #", "isolation": "\#($0)""# } ?? ""
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.test.json-reader", "path": "\(library)"\(isolationKey),
                          "config": {"greeting": "Привет", "volume": 0.75, "port": 9000, "loud": false, "tags": [1, 2, 3], "station": {"name": "Test FM"}}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        _ = try oton.connect()
        let config = try oton.ctl(["reader-config"])
        XCTAssertEqual(config.status, 0, config.stderr)
        XCTAssertEqual(config.stdout.trimmingCharacters(in: .newlines), "greeting=Привет volume=0.75 port=9000 loud=0 tags=3 station=Test FM")
        let arguments = try oton.ctl(["reader-args", "one two", "{\"not\": \"json\"}", "три"])
        XCTAssertEqual(arguments.status, 0, arguments.stderr)
        XCTAssertEqual(arguments.stdout.trimmingCharacters(in: .newlines), #"3 args: [one two] [{"not": "json"}] [три]"#)
        let refused = try oton.ctl(["reader-as-int", "7"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue((refused.stdout + refused.stderr).contains(#"args[0] must be a whole number, not "7""#), refused.stdout + refused.stderr)
    }

    func testInOtonsProcess() async throws {
        try await run(isolation: nil)
    }

    func testInAnIsolatedProcess() async throws {
        try await run(isolation: "process")
    }
}
