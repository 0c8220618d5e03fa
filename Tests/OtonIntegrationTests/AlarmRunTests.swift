import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// What an alarm's service runs (``Alarm/playArguments(oton:)``, plus --headless: no sound device
/// here) against real peers: the fade from silence, the tone when the station is unreachable, and a
/// sleep timer that cannot end the alarm.
final class AlarmRunTests: XCTestCase {
    /// The service's ExecStart words after the program: `play --alarm --fade-in=Ns --volume=P -- STATION`, --headless before `--`.
    private func execStart(station: String, fade: Int, volume: Int?, headless: Bool = true, adding extra: [String] = []) throws -> [String] {
        let alarm = try Alarm(
            number: 1, station: station, time: ScheduleTime.parse(alarm: "07:00", days: nil), fadeInSeconds: fade,
            volumePercent: volume, placement: .user)
        let service = AlarmUnitText.service(alarm, oton: TestPaths.oton)
        XCTAssertTrue(service.contains("ExecStart=" + alarm.playArguments(oton: TestPaths.oton).map { "\"\($0)\"" }.joined(separator: " ") + "\n"), service)
        var words = Array(alarm.playArguments(oton: TestPaths.oton).dropFirst())
        // More options go before the `--` that ends them (the station follows it).
        words.insert(contentsOf: (headless ? ["--headless"] : []) + extra, at: try XCTUnwrap(words.firstIndex(of: "--")))
        return words
    }

    /// The events oton wrote with `--events FILE`: kind, fields and monotonic time.
    private func events(_ path: String) -> [(kind: String, fields: [String: String], at: Int64)] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = (try? JSONValue.parse(Data(line.utf8), maxBytes: 1 << 20))?.objectValue,
                let kind = object["kind"]?.stringValue, let at = object["mono_ns"]?.int64Value
            else { return nil }
            return (kind, (object["fields"]?.objectValue ?? [:]).compactMapValues(\.stringValue), at)
        }
    }

    private func poll(_ what: String, timeout: TimeInterval, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return XCTFail("\(what): not within \(Int(timeout)) s") }
            usleep(100_000)
        }
    }

    func testTheVolumeRisesFromSilenceToTheTargetOverTheFade() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let eventsPath = directory.file("events.jsonl")
        let oton = try OtonProcess(
            self, arguments: try execStart(station: "Test FM", fade: 5, volume: 40, adding: ["--events", eventsPath]),
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}], "plugins": []}
                """)
        poll("the fade reaches 40 %", timeout: 60) { events(eventsPath).contains { $0.kind == "volume" && $0.fields["volume"].flatMap(Double.init) == 0.4 } }
        let all = events(eventsPath)
        let volumes = all.filter { $0.kind == "volume" }.compactMap { event in event.fields["volume"].flatMap(Double.init).map { ($0, event.at) } }
        XCTAssertEqual(volumes.first?.0, 0, "it starts in silence: \(volumes.prefix(3))")
        let playing = try XCTUnwrap(all.first { $0.kind == "state" && $0.fields["state"] == "playing" }?.at, oton.directory.read("stderr.log"))
        XCTAssertTrue(volumes.filter { $0.1 < playing }.allSatisfy { $0.0 == 0 }, "silent until audio plays")
        let ramp = volumes.filter { $0.1 >= playing }
        for (before, after) in zip(ramp, ramp.dropFirst()) { XCTAssertGreaterThanOrEqual(after.0, before.0, "the volume never falls during the fade") }
        let rising = try XCTUnwrap(ramp.first { $0.0 > 0 }), top = try XCTUnwrap(ramp.first { $0.0 >= 0.4 })
        let seconds = Double(top.1 - rising.1) / 1e9
        XCTAssertGreaterThan(seconds, 4.5, "over the 5 s fade, not at once")
        XCTAssertLessThan(seconds, 15, "the fade ends (a busy machine's timers are late, not this late)")
        XCTAssertGreaterThan(ramp.count, 50, "smoothly: many small steps (20 a second), not a jump")
        XCTAssertEqual(ramp.last?.0 ?? 0, 0.4, accuracy: 0.001)
    }

    /// The unit's own ExecStart (a sound device: 3 reconnects, then the station gives up) brings the tone sooner.
    /// A snooze while the tone plays rings the alarm's station again (and its tone again when it still fails).
    func testAStationThatGivesUpPlaysTheToneWhenItGivesUp() throws {
        let (oton, eventsPath) = try assertTheTonePlays(output: ["--audio-sink", "fakesink"])
        XCTAssertEqual(try oton.ctl(["snooze", "1s"]).status, 0)
        let stations = { self.events(eventsPath).filter { $0.kind == "track" }.compactMap { $0.fields["station"] } }
        poll("the ring returns to the station, then to the tone", timeout: 60) { stations().filter { $0.hasPrefix("alarm tone") }.count >= 2 }
        let seen = stations()
        let firstTone = try XCTUnwrap(seen.firstIndex { $0.hasPrefix("alarm tone") })
        XCTAssertTrue(seen[(firstTone + 1)...].contains("Dead FM"), "the ring tries the alarm's station: \(seen)")
        XCTAssertEqual(Set(seen.filter { $0.hasPrefix("alarm tone") }), ["alarm tone: Dead FM could not be reached"], "\(seen)")
    }

    @discardableResult
    private func assertTheTonePlays(output: [String]) throws -> (OtonProcess, String) {
        let dead = "http://127.0.0.1:\(try FreePort.allocate())/alarm.mp3"  // nothing listens there
        let directory = try TemporaryDirectory(self)
        let eventsPath = directory.file("events.jsonl"), pcmLog = directory.file("pcm.log")
        // A real PCM tap (Tests/Fixtures/pcm_format_plugin.c): the tone is audio, not only a state.
        let tap = try CPluginBuilder.build(
            TestPaths.root + "/Tests/Fixtures/pcm_format_plugin.c", into: directory, name: "pcm-tap",
            defines: [], libraries: ["m"])
        let arguments = try execStart(station: "Dead FM", fade: 0, volume: 40, headless: false, adding: output + ["--events", eventsPath])
        let oton = try OtonProcess(
            self, arguments: arguments,
            plugins: """
                {"stations": [{"name": "Dead FM", "url": "\(dead)"}],
                 "plugins": [{"id": "org.oton.test.pcm-format", "path": "\(tap)", "config": {"log": "\(pcmLog)"}}]}
                """)
        func tonePlaying() -> Int64? {
            let all = events(eventsPath)
            guard let tone = all.firstIndex(where: { $0.kind == "track" && ($0.fields["station"] ?? "").hasPrefix("alarm tone") }) else { return nil }
            return all[tone...].first { $0.kind == "state" && $0.fields["state"] == "playing" }?.at
        }
        poll("the tone plays", timeout: 60) { tonePlaying() != nil }
        let started = try XCTUnwrap(events(eventsPath).first?.at)
        let seconds = Double(try XCTUnwrap(tonePlaying()) - started) / 1e9
        XCTAssertLessThanOrEqual(seconds, 21, "within 21 s of the start")
        XCTAssertTrue(oton.directory.read("stderr.log").contains("alarm: Dead FM could not be reached"), oton.directory.read("stderr.log"))
        let status = try oton.ctl(["status"])
        XCTAssertTrue(status.stdout.hasPrefix("playing · alarm tone: Dead FM could not be reached"), "the status says why: \(status.stdout)")
        poll("the PCM tap hears 2 s of the tone", timeout: 30) { directory.read("pcm.log").contains("peak ") }
        let peak = directory.read("pcm.log").split(separator: "\n").first { $0.hasPrefix("peak ") }.flatMap { Double($0.split(separator: " ")[1]) }
        XCTAssertGreaterThan(peak ?? 0, 0.1, "beeps, not silence: \(directory.read("pcm.log"))")
        XCTAssertTrue(oton.process.isRunning, "the alarm keeps sounding")
        return (oton, eventsPath)
    }

    private static func plugins(_ url: URL) -> String {
        """
        {"stations": [{"name": "Test FM", "url": "\(url)"}],
         "plugins": [{"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so", "config": {"fade_seconds": 0.5, "action": "stop"}}]}
        """
    }

    /// Within one oton: a sleep timer running when the alarm rings again after a snooze is cancelled by the ring.
    func testARingCancelsTheSleepTimer() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let oton = try OtonProcess(
            self, arguments: try execStart(station: "Test FM", fade: 1, volume: 40), plugins: Self.plugins(server.url(mount: "/live.mp3")))
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, "playing")
        XCTAssertEqual(try oton.ctl(["sleep", "6s"]).status, 0)
        let snoozed = try oton.ctl(["snooze", "1s"])
        XCTAssertEqual(snoozed.status, 0, snoozed.stderr)
        XCTAssertTrue(snoozed.stdout.hasPrefix("snoozing: playing again at "), snoozed.stdout)
        XCTAssertNotNil(events.waitForEvent("state", timeout: 10) { $0["state"] == "idle" }, "the snooze stops playback")
        XCTAssertNotNil(events.waitForEvent("org.oton.sleep.cancelled", timeout: 15), "the ring cancels the sleep timer")
        XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "playing" }, "it rings again")
        // Past the sleep timer's deadline and fade, the alarm still plays and no sleep timer fired.
        let deadline = Date().addingTimeInterval(8)
        while Date() < deadline {
            guard let event = events.nextEvent() else { break }
            XCTAssertNotEqual(event.kind, "org.oton.sleep.fired")
            XCTAssertFalse(event.kind == "state" && event.fields["state"] != "playing", "still playing: \(event.fields)")
        }
        XCTAssertTrue(try oton.ctl(["status"]).stdout.hasPrefix("playing"))
    }

    /// Across processes: an alarm starting while `oton play` runs with a sleep timer makes it quit
    /// (its sleep timer with it) and plays as the "default" oton, past that timer's deadline.
    func testAnAlarmTakesOverFromAnOtonWithASleepTimer() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let evening = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"], plugins: Self.plugins(server.url(mount: "/live.mp3")),
            instance: "default")
        _ = try evening.connect()
        XCTAssertEqual(try evening.ctl(["sleep", "8s"]).status, 0)
        let sleepSetAt = Date()

        let alarm = Process()
        alarm.executableURL = URL(fileURLWithPath: TestPaths.oton)
        alarm.arguments = try execStart(station: "Test FM", fade: 1, volume: 40, adding: ["--config", evening.directory.file("plugins.json")])
        alarm.environment = evening.environment
        alarm.standardOutput = FileHandle.nullDevice
        alarm.standardError = FileHandle.nullDevice
        try alarm.run()
        addTeardownBlock { if alarm.isRunning { alarm.terminate(); alarm.waitUntilExit() } }

        poll("the evening's oton makes way", timeout: 20) { !evening.process.isRunning }
        XCTAssertEqual(evening.process.terminationStatus, 0, evening.directory.read("stderr.log"))
        XCTAssertTrue(
            evening.directory.read("stderr.log").contains("an alarm is starting: this oton makes way for it and quits"),
            "the oton that ends says why: \(evening.directory.read("stderr.log"))")
        let status = { try runProcess(TestPaths.oton, ["ctl", "--instance", "default", "status"], environment: evening.environment) }
        poll("the alarm plays as the default oton", timeout: 30) { (try? status())?.stdout.hasPrefix("playing") == true }
        // Past the old sleep timer's deadline and fade, the alarm plays on.
        poll("past the old deadline", timeout: 30) { Date().timeIntervalSince(sleepSetAt) > 10 }
        XCTAssertTrue(alarm.isRunning)
        let last = try status().stdout
        XCTAssertTrue(last.hasPrefix("playing"), last)
    }
}
