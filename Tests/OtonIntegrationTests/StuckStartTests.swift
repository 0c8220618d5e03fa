import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 39: an `oton play` stuck in gst_init let its first SIGTERM wait 13 minutes, since no session
/// reads the signal before the player is free; then it waited 10 s (``QuitSignals/startDeadlineSeconds``)
/// and exited 143. Issue 54 §12: a first start, which builds GStreamer's registry (29–50 s at `idle` on
/// a busy machine), says so, and a signal inside gst_init ends oton at once.
final class StuckStartTests: XCTestCase {
    /// The processes whose parent is `pid` and that mapped a file whose path contains `library`.
    private static func children(of pid: pid_t, mapping library: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap({ pid_t($0) }) == pid
            else { return false }
            // Read to its end: Foundation's reads of a whole /proc file stop after 4 KiB.
            let maps = FileHandle(forReadingAtPath: "/proc/\(child)/maps")?.readDataToEndOfFile()
            return maps.map { String(decoding: $0, as: UTF8.self).contains(library) } ?? false
        }
    }

    /// Running: there and not a zombie (its parent may be gone and its new one slow to reap).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    /// GStreamer's scanner is held by a library in GST_PLUGIN_PATH until oton is gone, so gst_init
    /// never returns: the first SIGTERM ends oton at once, saying where it was.
    func testTheFirstSIGTERMEndsAStartStuckInGstInit() throws {
        let directory = try TemporaryDirectory(self)
        let folder = directory.file("gst-plugins")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let holder = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/scanner_holding_library.c", into: directory, name: "scannerholder")
        try FileManager.default.copyItem(atPath: holder, toPath: folder + "/libscannerholder.so")
        let run = try OtonRun(
            self, ["play", "http://127.0.0.1:9/none.mp3", "--headless", "--no-control"],
            environment: ["GST_REGISTRY": directory.file("registry.bin"), "GST_PLUGIN_PATH": folder])
        var scanners: [pid_t] = []
        let (held, _) = run.wait(timeout: 60) {
            scanners = Self.children(of: run.process.pid, mapping: folder + "/libscannerholder.so")
            return !scanners.isEmpty
        }
        XCTAssertTrue(held, "GStreamer's scanner loaded the library that holds it: \(run.stderr)")

        XCTAssertTrue(run.stderr.contains("preparing the audio plugins (first start only"), "a first start says what it does: \(run.stderr)")
        let took = run.terminate(timeout: 60)
        print("measured: a start stuck in gst_init ended \(took.map { String(format: "%.2f s", $0) } ?? "not within 60 s") after its first SIGTERM")
        let seconds = try XCTUnwrap(took, "the first SIGTERM ended the stuck start")
        XCTAssertLessThan(seconds, Double(QuitSignals.startDeadlineSeconds) - 2, "at once, not after the 10 s deadline")
        XCTAssertEqual(run.process.terminationStatus, 128 + SIGTERM)
        XCTAssertTrue(run.stderr.contains("oton: stopped while preparing the audio plugins"), run.stderr)
        XCTAssertFalse(run.stdout.contains("state: connecting"), "it was stuck before the stream: \(run.stdout)")
        let deadline = Date().addingTimeInterval(20)
        while scanners.contains(where: Self.isAlive), Date() < deadline { usleep(50_000) }
        XCTAssertFalse(scanners.contains(where: Self.isAlive), "the held scanner ends with oton (its input closed)")
    }
}
