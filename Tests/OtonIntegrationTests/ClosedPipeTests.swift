import Foundation
import OtonTestSupport
import XCTest

/// `oton play … | head -2`: a reader that goes away ends oton quietly, as other Unix tools end.
final class ClosedPipeTests: XCTestCase {
    func testAReaderThatStopsReadingEndsOtonQuietlyWithStatusZero() throws {
        let directory = try TemporaryDirectory(self)
        let audio = directory.file("tone.ogg")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=4000", "!", "audioconvert", "!",
                    "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let config = try directory.write("plugins.json", #"{"stations": [], "plugins": []}"#)
        for output in [["--no-tui"], ["--no-tui", "--events", "-"]] {
            let command = #""$0" play "$1" --headless --config "$2" "${@:3}" | head -2 >/dev/null; echo "status=${PIPESTATUS[0]}""#
            let started = Date()
            let result = try runProcess(
                "/bin/bash", ["-c", command, TestPaths.oton, audio, config] + output,
                environment: ProcessInfo.processInfo.environment.merging([
                    "XDG_RUNTIME_DIR": directory.path,
                    "XDG_DATA_HOME": directory.file("data"),
                    "XDG_CACHE_HOME": directory.file("cache"),
                ]) { $1 })
            XCTAssertEqual(result.stdout, "status=0\n", "\(output): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Fatal error"), result.stderr)
            XCTAssertFalse(result.stderr.contains("Broken pipe"), result.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "it ended when the reader left, not at the end of the 90 s file")
        }
    }
}
