import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// The page in a real browser: Debian's headless chromium, driven through chromium-driver by
/// Tests/Fixtures/web_remote_browser.py, against a real `oton play` of a real Icecast mount.
/// The page sets the sleep timer through the sleep timer plugin's command (ABI 1.3 run_command).
/// Screenshots at 360×740 and 1280×800 are kept in .build/test-artefacts/ (not compared).
final class WebRemoteBrowserTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    func testThePageShowsTheTitleFollowsTheStreamAndPausesPlayback() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw NSError(
                domain: "web-remote", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "\(tool) is missing: run scripts/bootstrap (chromium, chromium-driver, python3-selenium)"])
        }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        _ = try await server.startSource(mount: "/second.mp3", format: .mp3, initialTitle: "Artist Z - Other Song", stationName: "Second FM")
        let port = try FreePort.allocate()
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"},
                          {"name": "Second FM", "url": "\(server.url(mount: "/second.mp3"))"}],
             "plugins": [
               {"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so"},
               {"id": "org.oton.share", "path": "libOtonShare.so"},
               {"id": "org.oton.artwork", "path": "libOtonArtwork.so", "config": {"timeout_seconds": 2, "status_retry_seconds": []}},
               {"id": "org.oton.web-remote", "path": "libOtonWebRemote.so", "config": {"listen": "127.0.0.1:\(port)"}}
             ]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song One" })
        let url = try XCTUnwrap(try oton.ctl(["web-remote", "url"]).stdout.split(separator: "\n").first.map(String.init))

        let artefacts = TestPaths.root + "/.build/test-artefacts"
        let browser = try LineProcess("/usr/bin/python3", [TestPaths.root + "/Tests/Fixtures/web_remote_browser.py", url, "Song One", artefacts])
        addTeardownBlock { browser.stop() }
        XCTAssertEqual(browser.nextLine(timeout: 60), "title-shown", browser.diagnostics)
        try await server.setTitle(mount: "/live.mp3", title: "Artist B - Song Two")
        browser.write("expect Song Two")
        let updated = try XCTUnwrap(browser.nextLine(timeout: 30), browser.diagnostics)
        XCTAssertTrue(updated.hasPrefix("title-updated "), updated)
        print("web remote browser: \(updated)")
        XCTAssertEqual(browser.nextLine(timeout: 15), "pause-clicked", browser.diagnostics)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "paused" }, "the page's button paused the player")
        XCTAssertTrue(try oton.ctl(["status"]).stdout.hasPrefix("paused"))
        XCTAssertEqual(browser.nextLine(timeout: 15), "sleep-clicked", browser.diagnostics)
        let sleep = events.waitForEvent("org.oton.sleep.set")
        XCTAssertEqual(sleep?["seconds"], "1800", "the page's 30 min button set the sleep timer: \(String(describing: sleep))")
        let status = try oton.ctl(["status"]).stdout
        XCTAssertTrue(status.contains("sleep 30:00") || status.contains("sleep 29:"), status)
        XCTAssertEqual(try oton.ctl(["share"]).status, 0)
        XCTAssertNotNil(events.waitForEvent("org.oton.share"))
        browser.write("continue")  // the page then shows the countdown and the cover before its screenshots
        XCTAssertEqual(browser.nextLine(timeout: 30), "play-clicked", browser.diagnostics)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "the page's button resumed playback")
        XCTAssertEqual(browser.nextLine(timeout: 30), "screenshots 2", browser.diagnostics)
        for name in ["web-remote-360x740.png", "web-remote-1280x800.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: artefacts + "/" + name)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size ?? 0, 1000, name)
        }
        XCTAssertEqual(browser.nextLine(timeout: 15), "station-clicked", browser.diagnostics)
        XCTAssertNotNil(
            events.waitForEvent("track", timeout: 20) { $0["station"] == "Second FM" && $0["title"] == "Other Song" },
            "the page's station button switched the player")
        browser.write("expect Other Song")
        XCTAssertEqual(browser.nextLine(timeout: 30), "station-shown", browser.diagnostics)
    }
}

/// A child process spoken to one line at a time; its stdout is read on a thread of its own.
final class LineProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []
    private let arrived = DispatchSemaphore(value: 0)

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = pending[(newline + 1)...]
                    lock.withLock { lines.append(line) }
                    arrived.signal()
                }
            }
            arrived.signal()
        }
    }

    func nextLine(timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = lock.withLock({ lines.isEmpty ? nil : lines.removeFirst() }) { return line }
            if !process.isRunning, lock.withLock({ lines.isEmpty }) { return nil }
            _ = arrived.wait(timeout: .now() + 0.5)
        }
        return nil
    }

    func write(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    var diagnostics: String {
        if process.isRunning { return "(browser script still running)" }
        return String(decoding: errors.fileHandleForReading.readDataToEndOfFile().suffix(2000), as: UTF8.self)
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
