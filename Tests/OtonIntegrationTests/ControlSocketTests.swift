import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton ctl` against a real `oton play` of a real Icecast mount: the sleep timer,
/// sharing, and a socket that bad clients cannot disturb.
final class ControlSocketTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private func pluginsJSON(fadeSeconds: Double = 1) -> String {
        """
        {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))", "homepage": "https://example.org/test-fm"}],
         "plugins": [
           {"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so", "config": {"fade_seconds": \(fadeSeconds)}},
           {"id": "org.oton.share", "path": "libOtonShare.so"}
         ]}
        """
    }

    /// Starts the source and `oton play`, subscribes, and waits for "playing".
    private func startPlaying(title: String = "Artist A - Song One") async throws -> (OtonProcess, ControlClient) {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: title, stationName: "Test FM")
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: pluginsJSON())
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "playing")
        return (oton, events)
    }

    func testSleepWithFadeRampsTheVolumeDownThenStopsAndRestoresIt() async throws {
        let (oton, events) = try await startPlaying()
        let reply = try oton.ctl(["sleep", "3s"])
        XCTAssertEqual(reply.status, 0, reply.stderr)
        XCTAssertTrue(reply.stdout.contains("stop in 0:03"), reply.stdout)
        let set = Date()
        XCTAssertNotNil(events.waitForEvent("org.oton.sleep.set") { $0["seconds"] == "3" })
        XCTAssertNotNil(events.waitForEvent("org.oton.sleep.fired"))
        // The 1 s fade ends at the time set (issue 54 §13): it begins a second before it.
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(set), 1.5, "not early")
        var volumes: [Double] = []
        let stopped = events.waitForEvent("state", where: { $0["state"] == "stopped" }) { event in
            if event.kind == "volume", let value = event.fields["volume"].flatMap(Double.init) {
                volumes.append(value)
            }
        }
        XCTAssertNotNil(stopped, "playback stops after the fade")
        XCTAssertGreaterThanOrEqual(volumes.count, 10, "a 1 s fade in steps: \(volumes)")
        XCTAssertEqual(volumes, volumes.sorted(by: >), "the volume only goes down: \(volumes)")
        XCTAssertEqual(volumes.last ?? 1, 0, accuracy: 0.001)
        XCTAssertNotNil(events.waitForEvent("volume") { $0["volume"] == "1.000" }, "the volume is back for the next play")
        let status = try oton.ctl(["status"])
        XCTAssertTrue(status.stdout.hasPrefix("idle"), status.stdout)
    }

    func testCancelBeforeExpiryKeepsPlaying() async throws {
        let (oton, events) = try await startPlaying()
        XCTAssertEqual(try oton.ctl(["sleep", "2s"]).status, 0)
        XCTAssertNotNil(events.waitForEvent("org.oton.sleep.set"))
        let counting = try oton.ctl(["status"]).stdout
        XCTAssertTrue(counting.contains(" · sleep 0:02") || counting.contains(" · sleep 0:01"), "ctl status shows the countdown: \(counting)")
        let cancel = try oton.ctl(["sleep", "cancel"])
        XCTAssertEqual(cancel.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "Sleep timer cancelled")
        XCTAssertNotNil(events.waitForEvent("org.oton.sleep.cancelled"))
        // Watch past the moment it would have fired.
        let end = Date().addingTimeInterval(3)
        var kinds: [String] = []
        events.setTimeout(seconds: 1)
        while Date() < end {
            if let event = events.nextEvent() {
                kinds.append("\(event.kind)/\(event.fields["state"] ?? "")")
            }
        }
        XCTAssertFalse(kinds.contains { $0.hasPrefix("org.oton.sleep.fired") || $0 == "state/stopped" }, "\(kinds)")
        let after = try oton.ctl(["status"]).stdout
        XCTAssertTrue(after.hasPrefix("playing"), after)
        XCTAssertFalse(after.contains("sleep"), "a cancelled timer is not shown: \(after)")
    }

    func testAfterThisTrackStopsAtTheNextTitleChange() async throws {
        let (oton, events) = try await startPlaying()
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song One" })
        XCTAssertEqual(try oton.ctl(["sleep", "after-track"]).status, 0)
        XCTAssertNotNil(events.waitForEvent("org.oton.sleep.set") { $0["mode"] == "after-track" })
        try await server.setTitle(mount: "/live.mp3", title: "Artist B - Song Two")
        // Read on until playback stopped, keeping the order: the timer must fire after Song Two began.
        var seen: [String] = []
        let stopped = events.waitForEvent("state", timeout: 30, where: { $0["state"] == "stopped" }) { event in
            seen.append("\(event.kind) \(event.fields["title"] ?? event.fields["state"] ?? "")")
        }
        XCTAssertNotNil(stopped, "playback stopped; seen: \(seen)")
        let songTwo = seen.firstIndex { $0 == "track Song Two" }
        let fired = seen.firstIndex { $0.hasPrefix("org.oton.sleep.fired") }
        XCTAssertNotNil(songTwo, "\(seen)")
        XCTAssertNotNil(fired, "\(seen)")
        if let songTwo, let fired { XCTAssertLessThan(songTwo, fired, "fired after the next title, not before: \(seen)") }
    }

    func testShareGivesTextAndLinksForACyrillicTitle() async throws {
        let (oton, events) = try await startPlaying()
        try await server.setTitle(mount: "/live.mp3", title: "Кюннэй - Сахам сирэ & «Дьол»")
        XCTAssertNotNil(events.waitForEvent("track") { $0["artist"] == "Кюннэй" })
        let result = try oton.ctl(["share", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let reply = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(reply["text"] as? String, "Кюннэй – Сахам сирэ & «Дьол» · Test FM https://example.org/test-fm")
        let links = try XCTUnwrap(reply["links"] as? [[String: String]])
        XCTAssertEqual(links.first?["url"], "https://example.org/test-fm")
        let youtube = try XCTUnwrap(links.first { $0["name"] == "YouTube Music" }?["url"])
        XCTAssertEqual(URLComponents(string: youtube)?.queryItems?.first { $0.name == "q" }?.value, "Кюннэй Сахам сирэ & «Дьол»")
        XCTAssertFalse(youtube.contains("&") && youtube.components(separatedBy: "&").count > 1, "the ampersand is encoded: \(youtube)")
        XCTAssertTrue(reply["copied_to"] is NSNull, "no clipboard tool without a display")
        XCTAssertNotNil(events.waitForEvent("org.oton.share") { $0["text"] == reply["text"] as? String })
    }

    /// Issue 39: a station that names no song was "Nothing is playing right now" while it played.
    func testShareOnAStationWithoutATitleSharesTheStation() async throws {
        let (oton, events) = try await startPlaying()
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song One" })
        try await server.setTitle(mount: "/live.mp3", title: "")
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == nil && $0["station"] == "Test FM" }, "the song ends; the station plays on")
        let result = try oton.ctl(["share", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let reply = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(reply["text"] as? String, "Test FM https://example.org/test-fm")
        let links = try XCTUnwrap(reply["links"] as? [[String: String]])
        XCTAssertEqual(links.map { $0["url"] }, ["https://example.org/test-fm"], "the station's page, no song searches")
    }

    func testShareWithNothingPlayingSaysSo() async throws {
        let oton = try OtonProcess(
            self, arguments: ["play", "\(server.url(mount: "/nothing.mp3"))", "--headless", "--retries", "100"],
            plugins: pluginsJSON())
        _ = try oton.connect()
        let result = try oton.ctl(["share"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("Nothing is playing right now"), result.stderr)
    }

    func testGarbageOversizedLinesAndIdleClientsDoNotDisturbPlayback() async throws {
        let (oton, events) = try await startPlaying()
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song One" })
        let idle = try oton.connect()  // connects and says nothing
        let garbage = try RawSocket(path: oton.socketPath)
        garbage.send(Data("this is not json\n".utf8))
        XCTAssertTrue(garbage.readLine()?.contains("not valid JSON") == true)
        garbage.send(Data("[1,2,3]\n{\"command\": 42}\n{\"command\": [\"no-such-thing\"], \"id\": \"x\"}\n".utf8))
        XCTAssertTrue(garbage.readLine()?.contains("must be a JSON object") == true)
        let wrongType = try XCTUnwrap(garbage.readLine().flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        XCTAssertEqual(wrongType["error"] as? String, "\"command\" must be a string or a non-empty array of strings")
        XCTAssertEqual(wrongType["ok"] as? Bool, false)
        let unknown = try XCTUnwrap(garbage.readLine())
        XCTAssertTrue(unknown.contains("unknown command") && unknown.contains(#""id":"x""#), unknown)
        let huge = try RawSocket(path: oton.socketPath)
        huge.send(Data(repeating: 0x41, count: 70 * 1024) + Data("\n".utf8))
        XCTAssertTrue(huge.readLine()?.contains("over 64 KiB") == true)
        XCTAssertNil(huge.readLine(), "the connection is closed after an oversized line")

        let status = try oton.ctl(["status"])
        XCTAssertTrue(status.stdout.hasPrefix("playing · Test FM · Artist A – Song One"), status.stdout)
        XCTAssertEqual(try oton.ctl(["volume", "30"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "volume 30%")
        XCTAssertNotNil(events.waitForEvent("volume") { $0["volume"] == "0.300" && $0["volume_percent"] == "30" })
        _ = idle
        // Nothing but the volume changed playback.
        events.setTimeout(seconds: 1)
        var states: [String] = []
        while let event = events.nextEvent() {
            if event.kind == "state" { states.append(event.fields["state"] ?? "") }
        }
        XCTAssertEqual(states, [], "no state change from bad clients")
    }

    func testTricklingClientsGiveTheirSlotsBackAtTheRequestDeadline() async throws {
        let (oton, events) = try await startPlaying()
        _ = events
        // Every slot (the subscriber holds one) taken by a client that sends one byte every 2 s:
        // an idle timeout would never fire.
        let tricklers = try (1..<ControlServer.maximumClients).map { _ in try RawSocket(path: oton.socketPath) }
        let started = Date()
        let refused = try oton.ctl(["status"])
        XCTAssertNotEqual(refused.status, 0, "all slots are taken")
        while Date().timeIntervalSince(started) < Double(ControlServer.requestSeconds) + 2 {
            for client in tricklers { client.send(Data("{".utf8)) }
            try await Task.sleep(for: .seconds(2))
        }
        for client in tricklers {
            let reply = try XCTUnwrap(client.readLine(), "the trickler was told why it is closed")
            XCTAssertTrue(reply.contains("no complete request line within 15 s"), reply)
            XCTAssertNil(client.readLine(), "and then disconnected")
        }
        let status = try oton.ctl(["status"])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.hasPrefix("playing"), status.stdout)
    }

    func testAnotherUsersDirectoryIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give a directory to another user") }
        let directory = try TemporaryDirectory(self)
        let foreign = directory.file("oton")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        chown(foreign, 65534, 65534)
        XCTAssertThrowsError(try ControlSocketPath.prepare(foreign)) { error in
            XCTAssertTrue("\(error)".contains("belongs to another user"), "\(error)")
        }
        let link = directory.file("link")
        symlink(directory.path, link)
        XCTAssertThrowsError(try ControlSocketPath.prepare(link)) { error in
            XCTAssertTrue("\(error)".contains("is not a directory"), "\(error)")
        }
    }
}

/// A bare Unix-socket client for sending what `oton ctl` never would.
final class RawSocket {
    private let fd: Int32
    private var buffer = Data()

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw NSError(domain: "socket", code: Int(errno)) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ data: Data) {
        data.withUnsafeBytes { _ = Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
