import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// What `oton record` does when things go wrong: kill -9, a source restart, hostile titles, a full disk.
final class RecordingFailureTests: XCTestCase {
    func testKill9LeavesEarlierFilesIntactTheCurrentOneAPartAndAValidIndex() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/k.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/k.mp3").absoluteString)
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        try await server.setTitle(mount: "/k.mp3", title: "Artist B - Song Two")
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started") { $0["title"] == "Song Two" })
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try await server.setTitle(mount: "/k.mp3", title: "Artist C - Song Three")
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.finished") { $0["path"]?.hasSuffix("Song Two.mp3") == true }, harness.stderr)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        kill(harness.process.processIdentifier, SIGKILL)
        harness.process.waitUntilExit()

        let files = harness.files()
        XCTAssertTrue(files.contains("Oton Test FM/Artist B - Song Two.mp3"), "\(files)")
        XCTAssertTrue(files.contains("Oton Test FM/incomplete/Artist A - Song One.mp3"), "\(files)")
        let parts = files.filter { $0.hasSuffix(".part") }
        XCTAssertEqual(parts, ["Oton Test FM/Artist C - Song Three.mp3.part"])
        for file in files where file.hasSuffix(".mp3") {
            XCTAssertTrue(try Discovered.run(harness.out + "/" + file).ok, file)
        }
        let tracks = try XCTUnwrap(harness.index()["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.last?["status"] as? String, "recording")
        XCTAssertEqual(tracks.last?["file"] as? String, "Oton Test FM/Artist C - Song Three.mp3.part")

        // The next recording into the folder tells the unfinished track from one being recorded.
        let next = try RecordHarness(self, url: server.url(mount: "/k.mp3").absoluteString, extra: ["--duration", "2s"], out: harness.out)
        try next.start()
        XCTAssertEqual(next.waitForExit(timeout: 20), 0, next.stderr)
        XCTAssertTrue(next.stderr.contains("1 track(s)") && next.stderr.contains("marked interrupted"), next.stderr)
        let after = try XCTUnwrap(next.index()["tracks"] as? [[String: Any]])
        let old = after.filter { $0["session"] as? String == tracks.last?["session"] as? String }
        XCTAssertEqual(old.last?["status"] as? String, "interrupted")
        XCTAssertEqual(old.last?["file"] as? String, "Oton Test FM/Artist C - Song Three.mp3.part", "the .part is kept and named")
        XCTAssertTrue(FileManager.default.fileExists(atPath: harness.out + "/Oton Test FM/Artist C - Song Three.mp3.part"))
    }

    func testAWAVPartLeftByKill9PlaysUpToItsLastHeaderRefresh() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/kw.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/kw.mp3").absoluteString, extra: ["--format", "wav"])
        try harness.start()
        let eventsSoFar = { harness.events.compactMap { $0["kind"] as? String }.joined(separator: " ") }
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started", timeout: 30), harness.stderr + "\nevents: " + eventsSoFar())
        let part = harness.out + "/Oton Test FM/Artist A - Song One.wav.part"
        // 44.1 kHz stereo is 176 kB/s: wait until more than 2 MiB are on disk (two header refreshes).
        let deadline = Date().addingTimeInterval(30)
        while ((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) ?? 0 < 2_200_000 && Date() < deadline {
            usleep(100_000)
        }
        kill(harness.process.processIdentifier, SIGKILL)
        harness.process.waitUntilExit()
        let bytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: part), "\(harness.files())"))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let dataSize = u32(2084 + 4)
        XCTAssertEqual(String(decoding: bytes[2084..<2088], as: UTF8.self), "data")
        XCTAssertGreaterThanOrEqual(dataSize, 1 << 20, "the header was refreshed while recording")
        XCTAssertLessThanOrEqual(dataSize, bytes.count - 2092, "it never claims more than is there")
        XCTAssertEqual(u32(4), 2084 + dataSize, "RIFF size agrees")
        let copy = harness.directory.file("salvaged.wav")
        try FileManager.default.copyItem(atPath: part, toPath: copy)
        let found = try Discovered.run(copy)
        XCTAssertTrue(found.ok, found.text)
        XCTAssertGreaterThan(found.seconds, 5.9, "at least the first MiB: \(found.text)")
    }

    func testSourceRestartStartsANewFileAndNothingIsCorrupt() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let source = try await server.startSource(mount: "/r.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/r.mp3").absoluteString)
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try await source.restart(initialTitle: "Artist A - Song One")
        // A new connection: a second file starts although the title stayed the same.
        let deadline = Date().addingTimeInterval(30)
        while harness.events.filter({ $0["kind"] as? String == "org.oton.recording.started" }).count < 2 && Date() < deadline {
            usleep(100_000)
        }
        try await Task.sleep(nanoseconds: 3_000_000_000)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        let files = harness.files().filter { $0.hasSuffix(".mp3") }
        XCTAssertEqual(
            files, ["Oton Test FM/incomplete/Artist A - Song One (2).mp3", "Oton Test FM/incomplete/Artist A - Song One.mp3"],
            harness.stderr)
        for file in files {
            let found = try Discovered.run(harness.out + "/" + file)
            XCTAssertTrue(found.ok, found.text)
        }
        let tracks = try XCTUnwrap(harness.index()["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.compactMap { $0["connection"] as? Int }.sorted(), [1, 2])
    }

    func testHostileTitlesStayInsideTheOutputFolder() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/h.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/h.mp3").absoluteString, extra: ["--partial", "keep"])
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        try await server.setTitle(mount: "/h.mp3", title: "../../etc/passwd")
        XCTAssertNotNil(harness.waitForEvent("track") { $0["title"]?.contains("passwd") == true })
        try await Task.sleep(nanoseconds: 2_000_000_000)
        try await server.setTitle(mount: "/h.mp3", title: "Bad\u{01}\u{7F} Artist - Кино\u{1B}[31m /\u{0A}title")
        XCTAssertNotNil(harness.waitForEvent("track") { $0["artist"] == "Bad Artist" })
        try await Task.sleep(nanoseconds: 2_000_000_000)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        let files = harness.files()
        XCTAssertEqual(files.count, 4, "\(files)")  // three tracks and the index
        for file in files {
            XCTAssertFalse(file.split(separator: "/").contains(".."), file)
            XCTAssertFalse(file.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, file)
        }
        XCTAssertTrue(files.contains { $0.hasPrefix("Oton Test FM/") && $0.contains("etc-passwd") }, "\(files)")
        XCTAssertTrue(files.contains { $0.hasPrefix("Oton Test FM/Bad Artist - Кино[31m") }, "\(files)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.directory.path + "/etc/passwd.mp3"))
    }

    func testFreeSpaceFloorStopsCleanlyWithAClearErrorAndExitCode4() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/d.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let directory = try TemporaryDirectory(self)
        let free = try XCTUnwrap(try FileManager.default.attributesOfFileSystem(forPath: directory.path)[.systemFreeSize] as? NSNumber)
        let floor = free.doubleValue / 1_048_576 + 1024  // a floor 1 GiB above what is free
        let harness = try RecordHarness(self, url: server.url(mount: "/d.mp3").absoluteString, extra: ["--disk-floor", String(Int(floor))])
        try harness.start()
        let status = harness.waitForExit(timeout: 30)
        XCTAssertEqual(status, 4, harness.stderr)
        XCTAssertTrue(harness.stderr.contains("recording failed: recording stopped: only"), harness.stderr)
        XCTAssertTrue(harness.stderr.contains("below the floor"), harness.stderr)
        XCTAssertTrue(harness.files().allSatisfy { !$0.hasSuffix(".part") }, "\(harness.files())")
    }

    /// A tiny filesystem that really fills up: files recorded before stay intact.
    func testFullTmpfsStopsCleanlyAndEarlierFilesStayIntact() async throws {
        let directory = try TemporaryDirectory(self)
        let mountPoint = directory.file("tiny")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try runProcess("/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=640k", "tmpfs", mountPoint])
        try XCTSkipIf(mounted.status != 0, "cannot mount a tmpfs here: \(mounted.stderr)")
        defer { _ = try? runProcess("/usr/bin/env", ["umount", "-l", mountPoint]) }
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/t.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(
            self, url: server.url(mount: "/t.mp3").absoluteString,
            extra: ["--disk-floor", "0.25", "--partial", "keep"], out: mountPoint + "/out")
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        try await server.setTitle(mount: "/t.mp3", title: "Artist B - Song Two")
        let status = harness.waitForExit(timeout: 40)
        XCTAssertEqual(status, 4, harness.stderr)
        XCTAssertTrue(harness.stderr.contains("below the floor"), harness.stderr)
        let files = harness.files().filter { $0.hasSuffix(".mp3") }
        XCTAssertTrue(files.contains("Oton Test FM/Artist A - Song One.mp3"), "\(harness.files())")
        for file in files {
            XCTAssertTrue(try Discovered.run(harness.out + "/" + file).ok, file)
        }
        XCTAssertNoThrow(try harness.index())
    }
}
