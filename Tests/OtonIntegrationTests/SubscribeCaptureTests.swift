import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// What `oton ctl subscribe` prints is JSON lines from its first line on (issue 53): its greeting
/// was the bare word "subscribed", so a capture saved from a real player was no script for
/// `oton plugins run`. Now the capture, as it is, feeds a plugin the player's events.
final class SubscribeCaptureTests: XCTestCase {
    func testACaptureOfCtlSubscribeIsJSONLinesAndAScriptForPluginsRun() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let plugins = #"{"stations": [{"name": "Test FM", "url": "\#(server.url(mount: "/live.mp3"))"}], "plugins": []}"#
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        _ = try oton.connect()
        let directory = try TemporaryDirectory(self)
        let capture = directory.file("capture.jsonl")
        FileManager.default.createFile(atPath: capture, contents: nil)
        let subscriber = ManagedProcess(
            name: "oton ctl subscribe", executable: TestPaths.oton, arguments: ["ctl", "--instance", oton.instance, "subscribe"],
            environment: oton.environment, stdout: FileHandle(forWritingAtPath: capture))
        try subscriber.start()
        defer { subscriber.stop() }
        // The greeting is flushed at once; the bus subscription follows it, so a volume change is
        // awaited before the title change the capture must hold.
        let greeted = waitForLines(capture, timeout: 60) { !$0.isEmpty }
        XCTAssertFalse(greeted.isEmpty, "ctl subscribe printed its first line")
        let subscribed = Date().addingTimeInterval(60)
        repeat {
            XCTAssertEqual(try oton.ctl(["volume", "50"]).status, 0)
            XCTAssertEqual(try oton.ctl(["volume", "60"]).status, 0)
        } while !directory.read("capture.jsonl").contains(#""kind":"volume""#) && Date() < subscribed
        try await server.setTitle(mount: "/live.mp3", title: "Artist B - Song Two")
        _ = waitForLines(capture, timeout: 60) { $0.contains { $0.contains(#""title":"Song Two""#) } }
        subscriber.stop()

        // Whole lines only: the last may have been cut by the stop.
        let text = directory.read("capture.jsonl")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertTrue(lines.contains { $0.contains(#""title":"Song Two""#) }, "the capture holds the title change: \(text)")
        for (index, line) in lines.enumerated() {
            let object = (try? JSONValue.parse(Data(line.utf8)))?.objectValue
            XCTAssertNotNil(object, "line \(index + 1) is a JSON object: \(line)")
        }
        let first = try XCTUnwrap(lines.first.flatMap { try? JSONValue.parse(Data($0.utf8)) })
        XCTAssertEqual(first["ok"]?.boolValue, true, "\(first)")
        XCTAssertEqual(first["subscribed"]?.boolValue, true, "\(first)")
        XCTAssertTrue(lines.dropFirst().allSatisfy { $0.hasPrefix(#"{"event":"#) }, "then events only: \(text)")

        // The capture as it is: every line after the greeting is a step, and the plugin hears the track.
        let probe = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let log = directory.file("probe.log")
        let run = try runProcess(TestPaths.oton, ["plugins", "run", probe, "--events", capture, "--plugin-config", #"{"log": "\#(log)"}"#])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(lines.count - 1) steps run"), run.stderr)
        XCTAssertTrue(directory.read("probe.log").contains("title=Song Two artist=Artist B"), directory.read("probe.log"))
    }
}
