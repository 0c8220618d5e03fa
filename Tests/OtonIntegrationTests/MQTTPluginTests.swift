import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The MQTT plugin (issue 38 §5) against a real mosquitto broker on loopback, read with mosquitto_sub as
/// Home Assistant would: its discovery message, the retained now-playing JSON that follows a title
/// change (quotes and backslashes escaped by the host's writer), "online" while oton runs and
/// "offline" after it stops.
final class MQTTPluginTests: XCTestCase {
    private var broker: Process?

    override func tearDown() {
        // SIGKILL: the broker inherits the test runner's signal mask, in which SIGTERM may be blocked.
        if let broker, broker.isRunning { kill(broker.processIdentifier, SIGKILL); broker.waitUntilExit() }
    }

    private func startBroker(in directory: TemporaryDirectory) throws -> UInt16 {
        let port = try FreePort.allocate()
        let config = try directory.write("mosquitto.conf", "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: try directory.write("mosquitto.log", "")) ?? FileHandle.nullDevice
        try process.run()
        broker = process
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let probe = try? runProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", "probe", "-m", "x"]), probe.status == 0 {
                return port
            }
            usleep(50_000)
        }
        throw NSError(domain: "mosquitto", code: 1, userInfo: [NSLocalizedDescriptionKey: directory.read("mosquitto.log")])
    }

    /// The retained message of `topic`, or nil when there is none within a few seconds.
    private func retained(_ topic: String, port: UInt16) -> String? {
        guard
            let result = try? runProcess("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-C", "1", "-W", "3", "--retained-only"]),
            result.status == 0
        else { return nil }
        return result.stdout.hasSuffix("\n") ? String(result.stdout.dropLast()) : result.stdout
    }

    private func waitForRetained(_ topic: String, port: UInt16, until accept: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(60)
        var last: String?
        while Date() < deadline {
            last = retained(topic, port: port)
            if let last, accept(last) { return last }
            usleep(100_000)
        }
        return last
    }

    func testNowPlayingReachesTheBrokerWithHomeAssistantDiscovery() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let port = try startBroker(in: directory)
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.oton.mqtt", "path": "\(TestPaths.pluginLibrary("OtonMQTT"))",
                              "config": {"broker": "127.0.0.1", "port": \(port), "topic": "radio/kitchen"}}]}
                """)
        _ = try oton.connect(timeout: 60)

        let first = waitForRetained("radio/kitchen/now_playing", port: port) { $0.contains("Song One") && $0.contains("\"playing\"") }
        let state = try JSONValue.parse(Data((first ?? "{}").utf8))
        XCTAssertEqual(state["title"]?.stringValue, "Song One", first ?? oton.directory.read("stderr.log"))
        XCTAssertEqual(state["artist"]?.stringValue, "Artist A")
        XCTAssertEqual(state["state"]?.stringValue, "playing")
        XCTAssertEqual(retained("radio/kitchen/status", port: port), "online")

        let discovery = try JSONValue.parse(Data((retained("homeassistant/sensor/oton_radio_kitchen/now_playing/config", port: port) ?? "{}").utf8))
        XCTAssertEqual(discovery["state_topic"]?.stringValue, "radio/kitchen/now_playing")
        XCTAssertEqual(discovery["availability_topic"]?.stringValue, "radio/kitchen/status")
        XCTAssertEqual(discovery["unique_id"]?.stringValue, "oton_radio_kitchen_now_playing")
        XCTAssertEqual(discovery["value_template"]?.stringValue, "{{ value_json.artist }} - {{ value_json.title }}")

        let hostile = #"Song "Two" \ back"#
        try await server.setTitle(mount: "/live.mp3", artist: "Artist B", title: hostile)
        let changed = waitForRetained("radio/kitchen/now_playing", port: port) { $0.contains("Artist B") }
        let second = try JSONValue.parse(Data((changed ?? "{}").utf8))
        XCTAssertEqual(second["title"]?.stringValue, hostile, changed ?? "")
        XCTAssertEqual(second["artist"]?.stringValue, "Artist B")

        oton.process.terminate()
        oton.process.waitUntilExit()
        XCTAssertEqual(waitForRetained("radio/kitchen/status", port: port) { $0 == "offline" }, "offline", "it says goodbye")
    }
}
