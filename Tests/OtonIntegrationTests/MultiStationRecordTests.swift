import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record A B C …`: many stations in one process against a real Icecast, each a session of
/// its own (folder, index, reconnects); `oton ctl` lists and changes the set while it runs.
final class MultiStationRecordTests: XCTestCase {
    /// Four mounts whose titles change at different moments, each heard by five stations (`?s=N`: a
    /// connection each): 20 stations in one oton. Every file decodes and carries its own mount's
    /// title; each station has its own folder and index; a mount whose source dies reconnects while
    /// the others' stations never do.
    func testTwentyStationsInOneProcessKeepTheirOwnTitlesFoldersAndConnections() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let mounts = ["/a.mp3", "/b.mp3", "/c.ogg", "/d.mp3"]
        var sources: [String: IcecastSource] = [:]
        for mount in mounts {
            sources[mount] = try await server.startSource(
                mount: mount, format: mount.hasSuffix(".ogg") ? .ogg : .mp3,
                initialTitle: "Artist \(mount.dropFirst().prefix(1)) - One", stationName: "FM \(mount)")
        }
        let urls = mounts.flatMap { mount in (1...5).map { server.url(mount: mount).absoluteString + "?s=\($0)" } }
        let run = try TemporaryDirectory(self).file("run")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let recorder = try RecordHarness(
            self, url: urls[0], extra: Array(urls.dropFirst()) + ["--instance", "many"],
            environment: ["XDG_RUNTIME_DIR": run])
        try recorder.start()
        let ctl = { (arguments: [String]) throws -> [String: Any] in
            let result = try runProcess(
                TestPaths.oton, ["ctl", "--instance", "many", "--json"] + arguments,
                environment: ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": run]) { $1 })
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? ["raw": result.stdout + result.stderr]
        }
        let stations = { () throws -> [[String: Any]] in ((try ctl(["status"])["data"] as? [String: Any])?["stations"] as? [[String: Any]]) ?? [] }
        // Every station recording, each with the light engine.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try stations().filter({ $0["state"] as? String == "playing" }).count < 20 { usleep(200_000) }
        let first = try stations()
        XCTAssertEqual(first.filter { $0["state"] as? String == "playing" }.count, 20, "\(first) \(recorder.stderr)")
        XCTAssertEqual(Set(first.compactMap { $0["engine"] as? String }), ["light"])
        XCTAssertEqual(Set(first.compactMap { $0["label"] as? String }).count, 20, "twenty distinct folders")

        // Titles change at different moments, one mount at a time.
        for (index, mount) in mounts.enumerated() {
            try await server.setTitle(mount: mount, title: "Artist \(mount.dropFirst().prefix(1)) - Two")
            if index == 1 { try await sources["/b.mp3"]!.restart(initialTitle: "Artist b - Two") }  // b's source dies and comes back
            try await Task.sleep(nanoseconds: 700_000_000)
        }
        let waitAll = Date().addingTimeInterval(30)
        while Date() < waitAll, try stations().filter({ $0["title"] as? String == "Two" }).count < 20 { usleep(200_000) }
        try await Task.sleep(nanoseconds: 2_000_000_000)
        let second = try stations()
        XCTAssertEqual(second.filter { $0["title"] as? String == "Two" }.count, 20, "\(second)")
        for station in second {
            let url = station["url"] as? String ?? ""
            let reconnects = station["reconnects"] as? Int ?? -1
            if url.contains("/b.mp3") {
                XCTAssertGreaterThanOrEqual(reconnects, 1, "b's stations reconnected: \(station)")
            } else {
                XCTAssertEqual(reconnects, 0, "the other stations' connections never broke: \(station)")
            }
        }
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)

        // Each station: its own folder with its own index; every file decodes and is named by its own mount's artist.
        let folders = try FileManager.default.contentsOfDirectory(atPath: recorder.out).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(folders.count, 20, "\(folders)")
        for folder in folders {
            let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: recorder.out + "/" + folder))
            XCTAssertTrue(files.contains("index.json"), "\(folder): \(files)")
            let audio = files.filter { $0.hasSuffix(".mp3") || $0.hasSuffix(".ogg") }
            XCTAssertTrue(audio.contains { $0.hasSuffix(" - Two.mp3") || $0.hasSuffix(" - Two.ogg") }, "\(folder): \(files)")
            let letters = Set(audio.compactMap { ($0 as NSString).lastPathComponent.split(separator: " ").dropFirst().first.map(String.init) })
            XCTAssertEqual(letters.count, 1, "one mount's titles only in \(folder): \(audio)")
            for file in audio {
                let found = try Discovered.run(recorder.out + "/" + folder + "/" + file)
                XCTAssertTrue(found.ok, "\(folder)/\(file): \(found.text)")
            }
        }
    }

    /// `oton ctl record add/remove` changes the set while it runs; --stations reads an .m3u; the
    /// removed station's file is finished and the others go on.
    func testStationsAreAddedAndRemovedWhileRecording() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/one.mp3", format: .mp3, initialTitle: "One A - First", stationName: "One FM")
        _ = try await server.startSource(mount: "/two.mp3", format: .mp3, initialTitle: "Two A - First", stationName: "Two FM")
        let directory = try TemporaryDirectory(self)
        // A local secret named by the list and by `record add` is never recorded (issue 39, N7).
        let secret = try directory.write("secret.env", "SECRET=hunter2\n" + String(repeating: "x", count: 4096))
        chmod(secret, 0o600)
        let list = try directory.write(
            "list.m3u", "#EXTM3U\n#EXTINF:-1,One\n\(server.url(mount: "/one.mp3").absoluteString)\n#EXTINF:-1,Secret\nfile://\(secret)\n")
        let run = directory.file("run")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let recorder = try RecordHarness(self, url: "--stations=\(list)", extra: ["--instance", "edit"], environment: ["XDG_RUNTIME_DIR": run])
        try recorder.start()
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": run]) { $1 }
        let ctl = { (arguments: [String]) throws -> ProcessResult in
            try runProcess(TestPaths.oton, ["ctl", "--instance", "edit"] + arguments, environment: environment)
        }
        let socketDeadline = Date().addingTimeInterval(20)
        while Date() < socketDeadline, (try? ctl(["status"]))?.stdout.contains("One · playing") != true { usleep(200_000) }
        XCTAssertTrue(try ctl(["status"]).stdout.contains("One · playing"), recorder.stderr)
        XCTAssertTrue(recorder.stderr.contains("entries naming local files are left out (1)"), recorder.stderr)
        for local in [secret, "file://" + secret] {
            let refused = try ctl(["record", "add", local])
            XCTAssertNotEqual(refused.status, 0, "a local file is not added from the control socket: \(refused.stdout)")
            XCTAssertTrue(refused.stderr.contains("http(s) URL"), refused.stderr)
        }
        let added = try ctl(["record", "add", server.url(mount: "/two.mp3").absoluteString])
        XCTAssertEqual(added.status, 0, added.stderr)
        let again = try ctl(["record", "add", server.url(mount: "/one.mp3").absoluteString])
        XCTAssertNotEqual(again.status, 0, "a station already recorded is not started twice: \(again.stdout)")
        XCTAssertTrue(again.stderr.contains("already being recorded"), again.stderr)
        let addDeadline = Date().addingTimeInterval(20)
        while Date() < addDeadline, try ctl(["status"]).stdout.components(separatedBy: "· playing").count < 3 { usleep(200_000) }
        let both = try ctl(["status"]).stdout
        XCTAssertEqual(both.components(separatedBy: "· playing").count, 3, both)
        for line in both.split(separator: "\n") {
            XCTAssertNotNil(
                line.range(of: #" · \d+ bytes · (1 file|(0|[2-9]|\d{2,}) files)( · .*)? · (light|gstreamer)$"#, options: .regularExpression),
                "bytes, files (\"1 file\", not \"1 files\"), the engine: \(line)")
        }
        XCTAssertEqual(try ctl(["record", "remove", "One"]).status, 0)
        let removeDeadline = Date().addingTimeInterval(20)
        while Date() < removeDeadline, try ctl(["status"]).stdout.contains("One ·") { usleep(200_000) }
        XCTAssertFalse(try ctl(["status"]).stdout.contains("One ·"), "One is no longer recorded")
        XCTAssertNotEqual(try ctl(["record", "remove", "Nowhere"]).status, 0, "an unknown station is refused")
        let escaped = try ctl(["record", "add", "\u{1B}[2J\u{1B}]0;owned\u{07}Evil FM"])
        XCTAssertNotEqual(escaped.status, 0)
        XCTAssertTrue(escaped.stderr.contains("control characters"), escaped.stderr)
        XCTAssertFalse((escaped.stdout + escaped.stderr).contains("\u{1B}"), "no terminal escape is echoed back (issue 39, N18)")
        XCTAssertTrue(recorder.stdout.contains("One/"), "One's file was finished when it was removed: \(recorder.stdout)")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        XCTAssertTrue(recorder.files().contains { $0.hasPrefix("127.0.0.1/") || $0.hasPrefix("127.0.0.1 ") }, "\(recorder.files())")
        XCTAssertFalse(recorder.files().contains { $0.contains("Secret") || $0.hasSuffix(".bin") }, "\(recorder.files())")
        for file in recorder.files() {
            let data = FileManager.default.contents(atPath: recorder.out + "/" + file) ?? Data()
            XCTAssertNil(data.range(of: Data("hunter2".utf8)), "the secret's bytes are in \(file)")
        }
    }

    /// `--all` records every station of plugins.json, each in a folder named after it; `--shard`
    /// keeps only this shard's share of them.
    func testAllRecordsEveryStationOfPluginsJSONAndShardsSplitThem() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/all.mp3", format: .mp3, initialTitle: "All A - First", stationName: "All FM")
        let urls = (1...4).map { server.url(mount: "/all.mp3").absoluteString + "?s=\($0)" }
        let stations = urls.enumerated().map { #"{"name": "Station \#($0.offset + 1)", "url": "\#($0.element)"}"# }.joined(separator: ", ")
        let config = #"{"stations": [\#(stations)], "plugins": []}"#
        let recorder = try RecordHarness(self, url: "--all", extra: ["--duration", "3s"], config: config)
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 60), 0, recorder.stderr)
        let folders = try FileManager.default.contentsOfDirectory(atPath: recorder.out).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(folders, ["Station 1", "Station 2", "Station 3", "Station 4"], recorder.stderr)
        // Two shards of the same list: every station in exactly one of them.
        var kept: [String] = []
        for shard in ["1/2", "2/2"] {
            let part = try RecordHarness(self, url: "--all", extra: ["--duration", "2s", "--shard", shard], config: config)
            try part.start()
            XCTAssertEqual(part.waitForExit(timeout: 60), 0, part.stderr)
            kept += (try? FileManager.default.contentsOfDirectory(atPath: part.out).filter { !$0.hasPrefix(".") }) ?? []
        }
        XCTAssertEqual(kept.sorted(), folders, "each station recorded by exactly one shard")
    }

    /// Issue 39 §4: a station that never connects held `--all --duration 20s` to its 70 s safety
    /// limit and ended with exit 0 and no word about it.
    func testAStationThatNeverConnectsEndsSoonAfterTheDurationAndSaysSo() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/up.mp3", format: .mp3, initialTitle: "Up A - First", stationName: "Up FM")
        let config = """
            {"stations": [{"name": "Up", "url": "\(server.url(mount: "/up.mp3").absoluteString)"},
                          {"name": "Gone", "url": "http://127.0.0.1:\(try FreePort.allocate())/gone.mp3"}], "plugins": []}
            """
        let recorder = try RecordHarness(self, url: "--all", extra: ["--duration", "5s"], config: config)
        let started = Date()
        try recorder.start()
        XCTAssertEqual(recorder.waitForExit(timeout: 120), 0, recorder.stderr)
        let seconds = Date().timeIntervalSince(started)
        print("[measure] --all --duration 5s with a station that never connects ended after \(String(format: "%.1f", seconds)) s (safety limit 40 s)")
        XCTAssertTrue(recorder.stderr.contains("Gone: nothing received in 20 s; not recorded"), recorder.stderr)
        XCTAssertTrue(recorder.files().contains { $0.hasPrefix("Up/") }, "\(recorder.files())")

        // Every station silent: said for each, and exit 3 (nothing could be recorded).
        let none = try RecordHarness(
            self, url: "--all", extra: ["--duration", "2s"],
            config: """
                {"stations": [{"name": "Gone", "url": "http://127.0.0.1:\(try FreePort.allocate())/gone.mp3"}], "plugins": []}
                """)
        try none.start()
        XCTAssertEqual(none.waitForExit(timeout: 120), 3, none.stderr)
        XCTAssertTrue(none.stderr.contains("Gone: nothing received in 17 s; not recorded"), none.stderr)
    }
}
