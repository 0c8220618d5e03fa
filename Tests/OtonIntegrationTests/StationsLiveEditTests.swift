import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton play --search` on a real Icecast mount found through the local directory, a running
/// oton picking up `oton stations add`, and edits that a SIGKILL cannot leave half-written.
final class StationsLiveEditTests: XCTestCase {
    private var server: IcecastServer?
    private var directory: FakeStationDirectory?

    override func tearDown() async throws {
        directory?.stop()
        server?.stop()
    }

    func testPlaySearchPlaysTheFirstResultCountsItAndReloadsStations() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/found.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Found FM")
        let uuid = "22222222-aaaa-4bbb-8ccc-000000000001"
        let directory = try FakeStationDirectory(stations: [
            #"{"stationuuid": "\#(uuid)", "name": "Found FM", "url": "http://127.0.0.1:9/dead.pls", "url_resolved": "\#(server.url(mount: "/found.mp3"))", "lastcheckok": 1}"#,
            #"{"stationuuid": "22222222-aaaa-4bbb-8ccc-000000000002", "name": "Second", "url": "http://127.0.0.1:9/second"}"#,
        ])
        self.directory = directory
        let oton = try OtonProcess(self, arguments: ["play", "--headless", "--search", "found", "--directory-server", directory.url])
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song One" }, "the first result plays: \(oton.directory.read("stderr.log"))")
        let status = try oton.ctl(["--json", "status"])
        XCTAssertTrue(
            status.stdout.contains(#""station":"Found FM""#) && status.stdout.contains(server.url(mount: "/found.mp3").absoluteString),
            status.stdout)

        let click = try await directory.http.waitForRequest(path: "/json/url/\(uuid)", timeout: 10)
        XCTAssertEqual(click.headers["user-agent"], StationDirectoryClient.userAgent)
        XCTAssertEqual(directory.http.requests(path: "/json/stations/search").first?.query["limit"], "1")

        // The running oton re-reads its stations when `oton stations add` edits its file.
        let config = oton.directory.file("plugins.json")
        let add = try runProcess(
            TestPaths.oton, ["stations", "add", "Kept", "http://127.0.0.1:9/kept", "--config", config],
            environment: oton.environment)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stderr.contains("running oton \"test\": 1 station reloaded from \(config)"), add.stderr)

        // A file broken meanwhile is refused by the running oton, which keeps playing.
        try "{\"stations\": [".write(toFile: config, atomically: true, encoding: .utf8)
        let reload = try oton.ctl(["reload-stations"])
        XCTAssertEqual(reload.status, 1)
        XCTAssertTrue(reload.stderr.contains("stations not reloaded: \(config):1:15"), reload.stderr)
        let after = try oton.ctl(["status"])
        XCTAssertTrue(after.stdout.hasPrefix("playing · Found FM"), after.stdout)
    }

    func testPlaySearchWithoutResultsSaysSoAndPlaysNothing() throws {
        let directory = try FakeStationDirectory(stations: [])
        self.directory = directory
        let home = try TemporaryDirectory(self)
        let config = try home.write("plugins.json", #"{"stations": [], "plugins": []}"#)
        let result = try runProcess(TestPaths.oton, ["play", "--headless", "--search", "nothing", "--directory-server", directory.url, "--config", config])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("has no station matching \"nothing\""), result.stderr)
        XCTAssertTrue(directory.http.requests.allSatisfy { !$0.path.hasPrefix("/json/url/") }, "nothing played, nothing counted")
    }

    /// The editor pauses between the complete temporary file and the rename (test hook); a SIGKILL
    /// there, and at random moments, leaves the old file or the new one, never a mixture.
    func testAKillDuringTheWriteLeavesTheOldFileWhole() throws {
        let home = try TemporaryDirectory(self)
        let original = BuiltInConfig.text
        let config = try home.write("plugins.json", original)
        let marker = home.file("holding")
        var environment = ProcessInfo.processInfo.environment
        environment[AtomicFileWriter.holdBeforeRenameVariable] = marker
        environment["XDG_RUNTIME_DIR"] = home.file("run")
        try FileManager.default.createDirectory(atPath: home.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])

        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["stations", "add", "Held", "http://127.0.0.1:9/held", "--config", config]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Another process: nothing to await but the marker file it creates.
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: marker), process.isRunning, Date() < deadline { usleep(10_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker), "the writer reached the hold")
        let temporary = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: home.path).first { $0.hasPrefix(".plugins.json.tmp-") })
        XCTAssertTrue(home.read(temporary).contains("\"Held\""), "the new text is complete in the temporary file")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(home.read("plugins.json"), original, "the old file is whole")

        environment[AtomicFileWriter.holdBeforeRenameVariable] = nil
        for attempt in 0..<8 {
            let name = "Station \(attempt)"
            let racing = Process()
            racing.executableURL = URL(fileURLWithPath: TestPaths.oton)
            racing.arguments = ["stations", "add", name, "http://127.0.0.1:9/\(attempt)", "--config", config]
            racing.environment = environment
            racing.standardOutput = FileHandle.nullDevice
            racing.standardError = FileHandle.nullDevice
            let before = home.read("plugins.json")
            try racing.run()
            usleep(useconds_t.random(in: 0...60_000))  // a random moment, not a synchronization
            kill(racing.processIdentifier, SIGKILL)
            racing.waitUntilExit()
            let after = home.read("plugins.json")
            let loaded = try ConfigLoader.load(file: config)
            XCTAssertTrue(after == before || loaded.station(named: name) != nil, "attempt \(attempt): old or new, nothing else")
        }
        let finished = try runProcess(TestPaths.oton, ["stations", "add", "Last", "http://127.0.0.1:9/last", "--config", config], environment: environment)
        XCTAssertEqual(finished.status, 0, finished.stderr)
        XCTAssertNotNil(try ConfigLoader.load(file: config).station(named: "Last"))
        XCTAssertNil(try ConfigLoader.load(file: config).station(named: "Held"))
    }

    func testConcurrentEditsAllLand() throws {
        let home = try TemporaryDirectory(self)
        let config = try home.write("plugins.json", BuiltInConfig.text)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = home.file("run")
        try FileManager.default.createDirectory(atPath: home.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let names = (1...6).map { "Parallel \($0)" }
        let processes = try names.map { name in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestPaths.oton)
            process.arguments = ["stations", "add", name, "http://127.0.0.1:9/\(name.count)", "--config", config]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        processes.forEach { $0.waitUntilExit() }
        XCTAssertEqual(processes.map(\.terminationStatus), Array(repeating: 0, count: names.count))
        let stations = try ConfigLoader.load(file: config).stations.map(\.name)
        XCTAssertEqual(Set(stations), Set(["Oton FM"] + names), "no edit overwrote another: \(stations)")
    }
}
