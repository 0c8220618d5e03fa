import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 53 §6: with a large LV2 collection installed, `oton play` with an LV2 effect spent 70 s reading
/// every plugin before it started, and a SIGTERM meanwhile waited for the 10 s deadline. Now the chain's
/// plugin is read from its own bundle, and the reading (on a first start after an install, the index of
/// every bundle's manifest) is a start phase that a quit signal ends at once. A bundle whose manifest is a
/// FIFO no one writes holds the index for as long as the test wants.
final class LV2StartSignalTests: XCTestCase {
    func testTheFirstSIGTERMEndsAStartReadingTheLV2Bundles() throws {
        let directory = try TemporaryDirectory(self)
        let folder = directory.file("lv2")
        try FileManager.default.createDirectory(atPath: folder + "/held.lv2", withIntermediateDirectories: true)
        let fifo = folder + "/held.lv2/manifest.ttl"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let plugins = #"{"stations": [], "plugins": [], "effects": [{"lv2": "http://plugin.org.uk/swh-plugins/amp"}]}"#
        let run = try OtonRun(
            self, ["play", "http://127.0.0.1:9/none.mp3", "--headless", "--no-control"], environment: ["LV2_PATH": folder], plugins: plugins)
        // The FIFO opens for writing (without blocking) once oton opened it to read: then it is held there.
        var writer: Int32 = -1
        let (held, _) = run.wait(timeout: 60) {
            writer = open(fifo, O_WRONLY | O_NONBLOCK)
            return writer >= 0
        }
        defer { if writer >= 0 { close(writer) } }
        XCTAssertTrue(held, "oton read the held bundle's manifest: \(run.stderr)")

        let took = run.terminate(timeout: 60)
        print("measured: a start held reading the LV2 bundles ended \(took.map { String(format: "%.2f s", $0) } ?? "not within 60 s") after its first SIGTERM")
        let seconds = try XCTUnwrap(took, "the first SIGTERM ended the held start")
        XCTAssertLessThan(seconds, Double(QuitSignals.startDeadlineSeconds) - 2, "at once, not after the 10 s deadline")
        XCTAssertEqual(run.process.terminationStatus, 128 + SIGTERM)
        XCTAssertTrue(run.stderr.contains("oton: stopped while preparing the audio plugins"), run.stderr)
    }
}
