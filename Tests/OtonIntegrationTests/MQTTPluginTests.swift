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
    func testNowPlayingReachesTheBrokerWithHomeAssistantDiscovery() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let broker = try MosquittoBroker(self, in: directory)
        let port = broker.port
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.oton.mqtt", "path": "\(TestPaths.pluginLibrary("OtonMQTT"))",
                              "config": {"broker": "127.0.0.1", "port": \(port), "topic": "radio/kitchen"}}]}
                """)
        _ = try oton.connect(timeout: 60)

        let first = broker.waitForRetained("radio/kitchen/now_playing") { $0.contains("Song One") && $0.contains("\"playing\"") }
        let state = try JSONValue.parse(Data((first ?? "{}").utf8))
        XCTAssertEqual(state["title"]?.stringValue, "Song One", first ?? oton.directory.read("stderr.log"))
        XCTAssertEqual(state["artist"]?.stringValue, "Artist A")
        XCTAssertEqual(state["state"]?.stringValue, "playing")
        XCTAssertEqual(broker.retained("radio/kitchen/status"), "online")

        let discovery = try JSONValue.parse(Data((broker.retained("homeassistant/sensor/oton_radio_kitchen/now_playing/config") ?? "{}").utf8))
        XCTAssertEqual(discovery["state_topic"]?.stringValue, "radio/kitchen/now_playing")
        XCTAssertEqual(discovery["availability_topic"]?.stringValue, "radio/kitchen/status")
        XCTAssertEqual(discovery["unique_id"]?.stringValue, "oton_radio_kitchen_now_playing")
        XCTAssertEqual(discovery["value_template"]?.stringValue, "{{ value_json.artist }} - {{ value_json.title }}")

        let hostile = #"Song "Two" \ back"#
        try await server.setTitle(mount: "/live.mp3", artist: "Artist B", title: hostile)
        let changed = broker.waitForRetained("radio/kitchen/now_playing") { $0.contains("Artist B") }
        let second = try JSONValue.parse(Data((changed ?? "{}").utf8))
        XCTAssertEqual(second["title"]?.stringValue, hostile, changed ?? "")
        XCTAssertEqual(second["artist"]?.stringValue, "Artist B")

        oton.process.terminate()
        oton.process.waitUntilExit()
        XCTAssertEqual(broker.waitForRetained("radio/kitchen/status") { $0 == "offline" }, "offline", "it says goodbye")
    }
}
