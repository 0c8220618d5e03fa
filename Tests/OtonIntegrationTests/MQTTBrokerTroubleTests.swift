import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The MQTT plugin when its broker is not there or misbehaves (issue 53): it says so once, and once
/// that it is connected again; a packet over its limit does not grow oton's memory, and neither it
/// nor a malformed one stops the plugin for good: each is logged and it reconnects.
final class MQTTBrokerTroubleTests: XCTestCase {
    private func play(_ server: IcecastServer, brokerPort: UInt16) throws -> OtonProcess {
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.oton.mqtt", "path": "\(TestPaths.pluginLibrary("OtonMQTT"))",
                              "config": {"broker": "127.0.0.1", "port": \(brokerPort), "topic": "radio/trouble"}}]}
                """)
        _ = try oton.connect(timeout: 60)
        return oton
    }

    private func lines(_ oton: OtonProcess, containing text: String) -> [String] {
        oton.directory.read("stderr.log").split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    private func wait(timeout: TimeInterval = 60, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(), Date() < deadline { usleep(50_000) }
        return condition()
    }

    func testAnUnreachableBrokerIsSaidOnceAndItsComingBackToo() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let port = try FreePort.allocate()  // nothing listens there
        let oton = try play(server, brokerPort: port)
        let unreachable = "cannot connect to the MQTT broker 127.0.0.1:\(port): Connection refused"
        guard wait({ !self.lines(oton, containing: unreachable).isEmpty }) else {
            return XCTFail("no line about the broker: \(oton.directory.read("stderr.log"))")
        }
        XCTAssertTrue(lines(oton, containing: "[org.oton.mqtt]").allSatisfy { $0.contains("warning") }, oton.directory.read("stderr.log"))
        // Said once, not per retry: it tries again after 1, 2, 4 and 8 s.
        let started = Date()
        while Date().timeIntervalSince(started) < 10 { usleep(200_000) }
        XCTAssertEqual(lines(oton, containing: "[org.oton.mqtt]").count, 1, oton.directory.read("stderr.log"))

        let broker = try MosquittoBroker(self, in: directory, port: port)
        let connected = "connected to the MQTT broker 127.0.0.1:\(port)"
        XCTAssertTrue(wait(timeout: 90) { !self.lines(oton, containing: connected).isEmpty }, oton.directory.read("stderr.log"))
        XCTAssertEqual(broker.waitForRetained("radio/trouble/status") { $0 == "online" }, "online")
        let said = lines(oton, containing: "[org.oton.mqtt]")
        XCTAssertEqual(said.count, 2, "one warning, one line when connected: \(said)")
        XCTAssertTrue(said.last?.contains("info") ?? false, "\(said)")
    }

    func testAHugePacketGrowsNoMemoryAndAMalformedOneEndsInAReconnect() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let broker = try ScriptServer(self, script: "mqtt_hostile_broker.py", arguments: ["300"])
        let oton = try play(server, brokerPort: broker.port)
        let pid = oton.process.processIdentifier
        XCTAssertTrue(wait { broker.printed.contains("connect 1") }, oton.directory.read("stderr.log"))
        let before = try XCTUnwrap(ProcessMemory(pid: pid)).residentKB

        // A PUBLISH that says 200 MiB, and 64 MiB of it as fast as oton reads.
        broker.send("huge")
        XCTAssertTrue(wait { broker.printed.contains { $0.hasPrefix("sent ") } }, "\(broker.printed)")
        let sent = broker.printed.first { $0.hasPrefix("sent ") }.flatMap { Int($0.dropFirst(5)) } ?? -1
        let after = try XCTUnwrap(ProcessMemory(pid: pid)).residentKB
        XCTAssertLessThan(sent, 16 << 20, "oton stopped reading it at its header (its memory: \(before) kB, then \(after) kB)")
        XCTAssertLessThan(after - before, 32 << 10, "oton's memory grew from \(before) kB to \(after) kB")
        let over = "it sent a packet of 209715200 bytes, more than the 262144 this plugin takes"
        guard wait({ !self.lines(oton, containing: over).isEmpty }) else {
            return XCTFail("no line about the packet: \(oton.directory.read("stderr.log"))")
        }

        // It reconnects; then a packet whose length runs past 4 bytes.
        guard wait({ broker.printed.contains("connect 2") }) else {
            return XCTFail("no second connection: \(broker.printed)\n\(oton.directory.read("stderr.log"))")
        }
        broker.send("malformed")
        let malformed = "it sent a malformed packet: a remaining length of more than 4 bytes"
        XCTAssertTrue(wait { !self.lines(oton, containing: malformed).isEmpty }, oton.directory.read("stderr.log"))
        XCTAssertTrue(wait { broker.printed.contains("connect 3") }, "it reconnects: \(broker.printed)\n\(oton.directory.read("stderr.log"))")
        XCTAssertEqual(try oton.ctl(["status"]).status, 0, "playback goes on")
    }
}
