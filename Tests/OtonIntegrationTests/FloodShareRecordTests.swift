import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// Issue 39, N2: one station of a multi-station recorder flooded bytes (3.1 MB/s, 48 MB/s while
/// another station was connecting) and filled the disk, and at the floor every station stopped
/// together. A flood is now read at 4× the rate the station declares and said once; when free space
/// nears the floor the station that wrote the most lately stops first, saying why, and the rest go on.
final class FloodShareRecordTests: XCTestCase {
    /// The hostile server's flood (128 kbit/s MP3 frames as fast as the socket takes them) beside two
    /// Icecast stations: the flood is read at no more than twice its cap and said once; the good
    /// stations receive in real time and never reconnect.
    func testAFloodIsCappedAndSaidWhileGoodStationsKeepTheirRate() async throws {
        let hostile = try HostileServer(self, maxSeconds: 240)
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/good.mp3", format: .mp3, initialTitle: "Good A - One", stationName: "Good FM")
        let config = """
            {"stations": [{"name": "Flood", "url": "\(hostile.url("/icy?metaint=2147483647&rate=0"))"},
                          {"name": "Good 1", "url": "\(server.url(mount: "/good.mp3").absoluteString)?s=1"},
                          {"name": "Good 2", "url": "\(server.url(mount: "/good.mp3").absoluteString)?s=2"}], "plugins": []}
            """
        let run = try TemporaryDirectory(self).file("run")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let recorder = try RecordHarness(self, url: "--all", extra: ["--instance", "flood"], environment: ["XDG_RUNTIME_DIR": run], config: config)
        try recorder.start()
        let stations = { () -> [String: [String: Any]] in
            let result = try? runProcess(
                TestPaths.oton, ["ctl", "--instance", "flood", "--json", "status"],
                environment: ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": run]) { $1 })
            let json = (try? JSONSerialization.jsonObject(with: Data((result?.stdout ?? "").utf8))) as? [String: Any]
            let list = ((json?["data"] as? [String: Any])?["stations"] as? [[String: Any]]) ?? []
            return Dictionary(list.map { ($0["label"] as? String ?? "", $0) }) { first, _ in first }
        }
        let bytes = { (station: [String: Any]?) -> Double in Double(station?["bytes"] as? Int ?? 0) }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, stations().values.filter({ $0["state"] as? String == "playing" }).count < 3 { usleep(200_000) }
        XCTAssertEqual(stations().values.filter { $0["state"] as? String == "playing" }.count, 3, "\(stations()) \(recorder.stderr)")
        // Past the guard's 5 s of saved-up allowance, then measured over 20 s.
        try await Task.sleep(nanoseconds: 8_000_000_000)
        let before = stations()
        let started = Date()
        try await Task.sleep(nanoseconds: 20_000_000_000)
        let after = stations()
        let seconds = Date().timeIntervalSince(started)
        let floodRate = (bytes(after["Flood"]) - bytes(before["Flood"])) / seconds
        print("[measure] flood read at \(Int(floodRate)) B/s beside two good stations (cap 65536 B/s; before the cap: ~3.1 MB/s)")
        XCTAssertLessThan(floodRate, 2 * 65_536, "the flood is held to 4× its 128 kbit/s: \(recorder.stderr)")
        XCTAssertGreaterThan(floodRate, 16_000, "and still read (a station is held back, not cut off)")
        for name in ["Good 1", "Good 2"] {
            let rate = (bytes(after[name]) - bytes(before[name])) / seconds
            XCTAssertGreaterThan(rate, 0.8 * 16_000, "\(name) receives its 128 kbit/s in real time: \(after[name] ?? [:])")
            XCTAssertEqual(after[name]?["reconnects"] as? Int, 0, "\(name) never reconnected: \(after[name] ?? [:])")
        }
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        let said = recorder.stderr.components(separatedBy: "more than 4× the 128 kbit/s it declares").count - 1
        XCTAssertEqual(said, 1, "the cap is said once: \(recorder.stderr)")
        for file in recorder.files() where file.hasPrefix("Good") && file.hasSuffix(".mp3") {
            XCTAssertTrue(try Discovered.run(recorder.out + "/" + file).ok, file)
        }
    }

    /// A small tmpfs that the flood fills: as free space nears the floor the flooding station stops
    /// first, saying so at once and naming itself, and the good station keeps recording.
    func testTheFloodingStationStopsFirstNearTheFloorAndTheOtherKeepsRecording() async throws {
        let directory = try TemporaryDirectory(self)
        let mountPoint = directory.file("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try runProcess("/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", mountPoint])
        try XCTSkipIf(mounted.status != 0, "cannot mount a tmpfs here: \(mounted.stderr)")
        defer { _ = try? runProcess("/usr/bin/env", ["umount", "-l", mountPoint]) }
        let hostile = try HostileServer(self, maxSeconds: 300)
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/good.mp3", format: .mp3, initialTitle: "Good A - One", stationName: "Good FM")
        let config = """
            {"stations": [{"name": "Flood", "url": "\(hostile.url("/icy?metaint=2147483647&rate=0"))"},
                          {"name": "Good", "url": "\(server.url(mount: "/good.mp3").absoluteString)"}], "plugins": []}
            """
        let run = directory.file("run")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let recorder = try RecordHarness(
            self, url: "--all", extra: ["--disk-floor", "2", "--partial", "keep", "--instance", "share"],
            out: mountPoint + "/out", environment: ["XDG_RUNTIME_DIR": run], config: config)
        try recorder.start()
        let size = { (folder: String) -> Int in
            let root = recorder.out + "/" + folder
            return ((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []).reduce(0) { total, path in
                total + ((try? FileManager.default.attributesOfItem(atPath: root + "/" + path)[.size] as? Int) ?? 0)
            }
        }
        let deadline = Date().addingTimeInterval(180)
        while Date() < deadline, recorder.process.isRunning, !recorder.stderr.contains("recording stopped first") { usleep(200_000) }
        XCTAssertTrue(recorder.stderr.contains("recording stopped first"), "said at the time, not at SIGTERM: \(recorder.stderr)")
        let line = recorder.stderr.split(separator: "\n").first { $0.contains("recording stopped first") }.map(String.init) ?? ""
        XCTAssertTrue(line.contains("/out/Flood"), "the message names the station: \(line)")
        XCTAssertTrue(line.contains("the other stations keep recording"), line)
        XCTAssertTrue(recorder.process.isRunning, "the process goes on: \(recorder.stderr)")
        // The stopped file is finished first (its tags written, its last partial frame dropped: ±100 bytes seen).
        try await pollUntilTrue(timeout: 60, interval: 0.1, "the stopped flood file's finished event") {
            recorder.finishedEvents().contains { ($0["path"] ?? "").contains("/out/Flood/") }
        }
        let flood = size("Flood"), good = size("Good")
        try await Task.sleep(nanoseconds: 10_000_000_000)
        print("[measure] flood stopped at \(size("Flood")) bytes written; good station \(good) → \(size("Good")) bytes in the next 10 s")
        XCTAssertLessThan(size("Flood"), flood + 16_384, "the flooding station writes nothing more (capped, it wrote 64 KiB/s)")
        XCTAssertGreaterThan(size("Good"), good + 80_000, "the good station keeps recording (16 KB/s)")
        XCTAssertFalse(recorder.stderr.contains("below the floor"), "no station reached the floor itself: \(recorder.stderr)")
        recorder.stop()
        for file in recorder.files() where file.hasPrefix("Good/") && file.hasSuffix(".mp3") {
            XCTAssertTrue(try Discovered.run(recorder.out + "/" + file).ok, file)
        }
    }
}
