import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record --duration` on Ogg Opus and FLAC in Ogg: the file holds the duration asked for
/// (±0.5 s), and says so itself: GStreamer's discoverer and ffprobe read that length from it, not
/// the time the source had been running (a FLAC file once read as 17:02).
final class RecordOggDurationTests: XCTestCase {
    func testOpusRecordsTheDurationAskedFor() async throws {
        try await assertRecordsFifteenSeconds(.opus, mount: "/dur.opus")
    }

    func testOggFLACRecordsTheDurationAskedFor() async throws {
        try await assertRecordsFifteenSeconds(.oggFLAC, mount: "/dur.ogg")
    }

    private func assertRecordsFifteenSeconds(_ format: StreamFormat, mount: String) async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: mount, format: format, initialTitle: "")
        // The source runs a while first, so its granule positions are far from zero when recording starts.
        try await Task.sleep(nanoseconds: 8_000_000_000)
        let harness = try RecordHarness(self, url: server.url(mount: mount).absoluteString, extra: ["--duration", "15s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 90), 0, harness.stderr)
        let files = harness.files().filter { $0 != "index.json" }
        XCTAssertEqual(files.count, 1, "\(harness.files())\n\(harness.stderr)")
        let path = harness.out + "/" + (files.first ?? "")
        XCTAssertTrue(files.allSatisfy { !$0.hasPrefix("/") && !$0.contains("..") }, "\(files)")
        let discovered = try Discovered.run(path)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertEqual(discovered.seconds, 15, accuracy: 0.5, "gst-discoverer: \(discovered.text)")
        let probe = try runProcess("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", path])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let probed = Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        XCTAssertEqual(probed, 15, accuracy: 0.5, "ffprobe: \(probe.stdout) \(probe.stderr)")
        print("[measure] \(format.rawValue): gst-discoverer \(discovered.seconds) s, ffprobe \(probed) s, file \(files)")
        let stopped = try XCTUnwrap(harness.events.first { $0["kind"] as? String == "org.oton.file-sink.stopped" }.map(harness.fields))
        XCTAssertEqual(stopped["reason"], "max-duration")
    }
}
