import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The Snapcast sink (org.oton.snapcast) against real servers on loopback: `oton play` of the lab's
/// Icecast tone, a real snapserver 0.26 with a TCP source whose control script is the plugin's, and
/// a real snapclient writing what it would play to a file.
final class SnapcastTests: XCTestCase {
    private var icecast: IcecastServer!

    override func setUp() async throws {
        icecast = try await IcecastServer.start()
        _ = try await icecast.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
    }

    override func tearDown() async throws {
        icecast?.stop()
    }

    private func startOton(sourcePort: UInt16, metadataPort: UInt16, extraConfig: String = "") throws -> (OtonProcess, ControlClient) {
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(icecast.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.snapcast", "path": "libOtonSnapcast.so",
                          "config": {"host": "127.0.0.1", "port": \(sourcePort), "stream": "Oton",
                                     "metadata_listen": "127.0.0.1:\(metadataPort)"\(extraConfig)}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        return (oton, events)
    }

    /// `oton ctl snapcast --format json`.
    private func figures(_ oton: OtonProcess) throws -> JSONValue {
        let reply = try oton.ctl(["snapcast", "--format", "json"])
        XCTAssertEqual(reply.status, 0, reply.stderr)
        return try JSONValue.parse(Data(reply.stdout.utf8))
    }

    /// Waits until the client's file holds `seconds` of loud sound written after `fromSecond`;
    /// returns the median frequency of those windows.
    private func waitForTone(_ lab: SnapcastLab, fromSecond: Double, seconds: Double = 1.5, timeout: TimeInterval = 60) -> Double? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let frequencies = ToneMeter.frequencies(lab.clientSamples(fromSecond: fromSecond))
            if Double(frequencies.count) * 0.1 >= seconds { return ToneMeter.median(frequencies) }
            usleep(100_000)
        }
        return nil
    }

    func testTheToneAndTheTitleReachASnapclient() async throws {
        let lab = try SnapcastLab(self)
        try await lab.startServer()
        try lab.startClient()
        let (oton, events) = try startOton(sourcePort: lab.sourcePort, metadataPort: lab.metadataPort)
        XCTAssertNotNil(events.waitForEvent("track", timeout: 30) { $0["title"] == "Song One" }, oton.directory.read("stderr.log"))

        let frequency = waitForTone(lab, fromSecond: 0)
        XCTAssertNotNil(frequency, "no tone at the client. oton: \(oton.directory.read("stderr.log")) client: \(lab.clientLog) server: \(lab.serverLog)")
        XCTAssertEqual(frequency ?? 0, 440, accuracy: 5, "the lab's 440 Hz tone, resampled to 48 kHz, played by snapclient")
        print("snapcast: the client plays \(frequency ?? 0) Hz (median of its loud 0.1 s windows)")

        let stream =
            try await waitForStream(lab) {
                $0?["properties"]?["metadata"]?["title"]?.stringValue == "Song One" && $0?["status"]?.stringValue == "playing"
            } ?? lab.stream()
        XCTAssertEqual(stream?["status"]?.stringValue, "playing", "\(stream?.jsonText ?? "no stream") \(lab.serverLog)")
        let metadata = stream?["properties"]?["metadata"]
        XCTAssertEqual(metadata?["title"]?.stringValue, "Song One", "\(stream?.jsonText ?? "") \(lab.serverLog)")
        XCTAssertEqual(metadata?["artist"]?.jsonText, #"["Artist A"]"#)
        XCTAssertEqual(metadata?["album"]?.stringValue, "Test FM", "the station as the album")

        let counts = try figures(oton)
        XCTAssertEqual(counts["connected"]?.boolValue, true, counts.jsonText)
        XCTAssertGreaterThan(counts["sent_bytes"]?.numberValue ?? 0, 48000 * 4, counts.jsonText)
        XCTAssertEqual(counts["control_scripts"]?.numberValue, 1, counts.jsonText)
        let text = try oton.ctl(["snapcast"])
        XCTAssertTrue(text.stdout.hasPrefix("connected to snapserver at 127.0.0.1:\(lab.sourcePort), stream Oton (48000:16:2)"), text.stdout)

        // A new title reaches the rooms' apps.
        try await icecast.setTitle(mount: "/live.mp3", title: "Artist B - Song Two")
        let retitled = try await waitForStream(lab) { $0?["properties"]?["metadata"]?["title"]?.stringValue == "Song Two" }
        XCTAssertNotNil(retitled, "the new title in Server.GetStatus: \((try? lab.stream())??.jsonText ?? "")")
        XCTAssertEqual(try lab.stream()?["properties"]?["metadata"]?["artist"]?.jsonText, #"["Artist B"]"#)

        // oton ends: the control script reports a stopped stream with no title, not the last one for ever.
        XCTAssertEqual(try oton.ctl(["quit"]).status, 0)
        let stopped = try await waitForStream(lab) {
            $0?["properties"]?["playbackStatus"]?.stringValue == "stopped" && $0?["properties"]?["metadata"]?["title"] == nil
        }
        XCTAssertNotNil(stopped, "a stopped stream once oton is gone: \((try? lab.stream())??.jsonText ?? "")")
    }

    /// `oton ctl status` says playing (or buffering: a loaded machine's network buffer may dip;
    /// the sink never holds the sound back, so that is not its doing).
    private func isPlaying(_ oton: OtonProcess) throws -> Bool {
        let status = try oton.ctl(["status"]).stdout
        return status.hasPrefix("playing") || status.hasPrefix("buffering")
    }

    /// Polls Server.GetStatus until the stream named Oton satisfies `condition`; nil after `timeout`.
    private func waitForStream(_ lab: SnapcastLab, timeout: TimeInterval = 30, _ condition: (JSONValue?) -> Bool) async throws -> JSONValue? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let stream = try lab.stream()
            if condition(stream) { return stream }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return nil
    }

    /// mute_local: this machine's output goes to volume 0 while the rooms still get the whole
    /// tone (the PCM tap sits before the volume element).
    func testMuteLocalSilencesThisMachineButNotTheRooms() async throws {
        let lab = try SnapcastLab(self)
        try await lab.startServer()
        try lab.startClient()
        let (oton, events) = try startOton(sourcePort: lab.sourcePort, metadataPort: lab.metadataPort, extraConfig: #", "mute_local": true"#)
        XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, oton.directory.read("stderr.log"))
        var volume = ""
        let deadline = Date().addingTimeInterval(30)
        while !volume.hasPrefix("volume 0%"), Date() < deadline {
            volume = try oton.ctl(["volume"]).stdout
            usleep(100_000)
        }
        XCTAssertTrue(volume.hasPrefix("volume 0%"), "the local output was muted: \(volume) \(oton.directory.read("stderr.log"))")
        let frequency = waitForTone(lab, fromSecond: 0)
        XCTAssertEqual(frequency ?? 0, 440, accuracy: 5, "the rooms hear the tone at full level. \(lab.clientLog)")
        let peak = lab.clientSamples().map { abs(Int32($0)) }.max() ?? 0
        XCTAssertGreaterThan(peak, 2500, "the lab's MP3 tone is at 0.1 of full scale (3277) in the rooms, not silenced with the local volume")
        XCTAssertTrue(try isPlaying(oton), "still playing, only silently here")
    }

    /// snapserver restarts mid-play: oton reconnects, the client plays the tone again within 5 s
    /// of snapserver being back, and local playback never leaves "playing".
    func testASnapserverRestartResumesTheSoundAndLocalPlaybackGoesOn() async throws {
        let lab = try SnapcastLab(self)
        try await lab.startServer()
        try lab.startClient()
        let (oton, events) = try startOton(sourcePort: lab.sourcePort, metadataPort: lab.metadataPort)
        XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, oton.directory.read("stderr.log"))
        XCTAssertNotNil(waitForTone(lab, fromSecond: 0), "tone before the restart. \(lab.clientLog)")

        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)  // the clock of the events' mono_ns
        let stoppedAt = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        lab.stopServer()
        // snapclient stops its player when it loses the server (its file stops growing), and says so.
        let goneDeadline = Date().addingTimeInterval(30)
        while !lab.clientLog.contains("Failed to connect"), Date() < goneDeadline { usleep(100_000) }
        XCTAssertTrue(lab.clientLog.contains("Failed to connect"), "the client noticed snapserver was gone. \(lab.clientLog)")
        let disconnectedDeadline = Date().addingTimeInterval(30)
        while try figures(oton)["connected"]?.boolValue != false, Date() < disconnectedDeadline { usleep(100_000) }
        XCTAssertEqual(try figures(oton)["connected"]?.boolValue, false, "oton noticed snapserver was gone")

        let restartedAt = Date()
        let resumeFrom = lab.clientSeconds
        try await lab.startServer()
        var reconnectedAfter: TimeInterval?
        var clientBackAfter: TimeInterval?
        let clientConnections = lab.clientLog.components(separatedBy: "Connected to").count
        var frequency: Double?
        let resumeDeadline = Date().addingTimeInterval(30)
        while frequency == nil, Date() < resumeDeadline {
            if reconnectedAfter == nil, try figures(oton)["connected"]?.boolValue == true { reconnectedAfter = Date().timeIntervalSince(restartedAt) }
            if clientBackAfter == nil, lab.clientLog.components(separatedBy: "Connected to").count > clientConnections {
                clientBackAfter = Date().timeIntervalSince(restartedAt)
            }
            frequency = waitForTone(lab, fromSecond: resumeFrom, seconds: 0.5, timeout: 0.1)
        }
        let resumedAfter = Date().timeIntervalSince(restartedAt)
        print(
            "snapcast: after the restart oton reconnected at \(reconnectedAfter.map { String(format: "%.2f", $0) } ?? "-") s, snapclient at \(clientBackAfter.map { String(format: "%.2f", $0) } ?? "-") s"
        )
        XCTAssertNotNil(frequency, "no tone after the restart. oton: \(oton.directory.read("stderr.log")) client: \(lab.clientLog)")
        XCTAssertEqual(frequency ?? 0, 440, accuracy: 5)
        print("snapcast: tone back at the client \(String(format: "%.2f", resumedAfter)) s after snapserver restarted")
        // The tone is known once half a second of it was written: it began that much earlier.
        XCTAssertLessThan(resumedAfter - 0.5, 5, "sound resumes at the client within 5 s of snapserver's restart")
        XCTAssertLessThan(reconnectedAfter ?? .infinity, 5, "oton reconnected (it retries every second)")

        let counts = try figures(oton)
        XCTAssertEqual(counts["connected"]?.boolValue, true, counts.jsonText)
        XCTAssertEqual(counts["connections"]?.numberValue, 2, "one reconnection: \(counts.jsonText)")
        XCTAssertGreaterThan(counts["dropped_bytes"]?.numberValue ?? 0, 0, "what played while snapserver was away is counted as dropped")
        XCTAssertTrue(try isPlaying(oton), "local playback went on")
        // Every state event since snapserver was stopped (the subscription kept them), read until a
        // second passes without one. A loaded machine may make the network buffer dip (buffering,
        // which the sink does not cause: it never holds the sound back); playback must never stop.
        events.setTimeout(seconds: 1)
        var left: [String] = []
        while let event = events.nextEvent() {
            if event.kind == "state", (event.monotonicNanoseconds ?? .max) > stoppedAt,
                !["playing", "buffering"].contains(event.fields["state"] ?? "")
            {
                left.append("\(event.fields)")
            }
        }
        XCTAssertEqual(left, [], "local playback never stopped while snapserver went away and came back")
    }

    /// A peer that accepts oton's connection and never reads: local playback goes on, the sound
    /// is dropped and counted, and oton's memory stays bounded (192 kHz stereo is 768 KB a second,
    /// so a sender that kept everything would grow by megabytes a second).
    func testASnapserverThatNeverReadsCostsDroppedSoundNotMemory() async throws {
        let directory = try TemporaryDirectory(self)
        let sink = try SilentPeer()
        defer { sink.close() }
        let metadataPort = try FreePort.allocate()
        let (oton, events) = try startOton(
            sourcePort: sink.port, metadataPort: metadataPort,
            extraConfig: #", "format": "192000:16:2", "buffer_ms": 1000"#)
        XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, oton.directory.read("stderr.log"))
        XCTAssertTrue(sink.acceptOne(timeout: 30), "oton connected to the silent peer. \(oton.directory.read("stderr.log"))")

        func dropped() throws -> Double { try figures(oton)["dropped_bytes"]?.numberValue ?? 0 }
        let firstDropDeadline = Date().addingTimeInterval(60)
        while try dropped() < 2 * 768_000, Date() < firstDropDeadline { usleep(200_000) }
        let droppedBefore = try dropped()
        XCTAssertGreaterThan(droppedBefore, 2 * 768_000, "two seconds of sound dropped once the peer's buffers are full")
        let rssBefore = residentBytes(oton.process.processIdentifier)

        let more = Date().addingTimeInterval(60)
        while try dropped() < droppedBefore + 15 * 768_000, Date() < more { usleep(500_000) }
        let counts = try figures(oton)
        let droppedAfter = counts["dropped_bytes"]?.numberValue ?? 0
        let rssAfter = residentBytes(oton.process.processIdentifier)
        XCTAssertGreaterThan(droppedAfter - droppedBefore, 15 * 768_000, "15 more seconds of sound dropped: \(counts.jsonText)")
        XCTAssertEqual(counts["connected"]?.boolValue, true, "still connected: a peer that does not read is slow, not gone")
        XCTAssertLessThan(counts["sent_bytes"]?.numberValue ?? .infinity, 16_000_000, "only what the kernel's buffers hold was sent: \(counts.jsonText)")
        let growth = Double(rssAfter - rssBefore)
        print("snapcast: oton's resident memory grew \(Int(growth / 1024)) KiB while \(Int((droppedAfter - droppedBefore) / 1024)) KiB of sound were dropped")
        XCTAssertLessThan(growth, 8_000_000, "memory stays bounded while \(Int(droppedAfter - droppedBefore)) bytes were dropped")
        XCTAssertTrue(try isPlaying(oton), "local playback never stalled")
        XCTAssertTrue(oton.directory.read("stderr.log").contains("snapserver reads too slowly"), "the drops are logged: \(oton.directory.read("stderr.log"))")
        _ = directory
    }

    private func residentBytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
