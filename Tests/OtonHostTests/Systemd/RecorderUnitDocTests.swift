import Foundation
import OtonTestSupport
import XCTest

/// The service unit docs/recording.md ships for a recorder: systemd accepts it, and it asks for
/// the notify protocol and the watchdog the recorder speaks.
final class RecorderUnitDocTests: XCTestCase {
    func testTheShippedRecorderUnitPassesSystemdAnalyzeVerifyWithTheWatchdog() throws {
        let doc = try String(contentsOfFile: TestPaths.root + "/docs/recording.md", encoding: .utf8)
        let start = try XCTUnwrap(doc.range(of: "`/etc/systemd/system/oton-recorder.service`:\n\n```ini\n"))
        let end = try XCTUnwrap(doc.range(of: "\n```", range: start.upperBound..<doc.endIndex))
        let unit = String(doc[start.upperBound..<end.lowerBound])
        XCTAssertTrue(unit.contains("\nType=notify\n") && unit.contains("\nWatchdogSec=") && unit.contains("\nNotifyAccess=main\n"), unit)
        // The oton of the unit is installed later; verify with a binary that exists.
        let directory = try TemporaryDirectory(self)
        let path = try directory.write("oton-recorder.service", unit.replacingOccurrences(of: "/usr/local/bin/oton", with: TestPaths.oton))
        let result = try runProcess("/usr/bin/env", ["systemd-analyze", "verify", "--man=no", path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains("oton-recorder"), "no warning about the unit: \(result.stderr)")
    }
}
