import Foundation
import OtonTestSupport
import XCTest

/// The track in progress when a recording stops is kept as incomplete, however short it is: it used to
/// be deleted when shorter than --min-seconds (issue 37 §6: a third of the stations lost that audio).
final class RecordStopKeepsTrackTests: XCTestCase {
    func testTheTrackInProgressAtSIGTERMIsKeptThoughShorterThanMinSeconds() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("source.mp3")
        try LiveSource.makeFile(file, seconds: 4)
        let station = try LiveSource(self, file: file, logDirectory: directory.file("sent"))
        let recorder = try RecordHarness(self, url: station.url, extra: ["--min-seconds", "600"])
        try recorder.start()
        XCTAssertNotNil(recorder.waitForEvent("org.oton.recording.started", timeout: 60), recorder.stderr)
        let parts = { recorder.files().filter { $0.hasSuffix(".part") } }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline,
            (parts().first.flatMap { try? FileManager.default.attributesOfItem(atPath: recorder.out + "/" + $0)[.size] as? Int } ?? 0) < 40_000
        {
            usleep(100_000)
        }
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        let finished = try XCTUnwrap(recorder.finishedEvents().last, recorder.stderr)
        XCTAssertEqual(finished["status"], "incomplete", "\(finished)")
        let path = try XCTUnwrap(finished["path"])
        XCTAssertTrue(path.contains("/incomplete/"), path)
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0, 40_000)
        XCTAssertTrue(try Discovered.run(path).ok)
        XCTAssertTrue(recorder.stdout.contains("incomplete: "), recorder.stdout)
    }
}
