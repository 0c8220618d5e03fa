import Foundation
import OtonTestSupport
import XCTest

/// The man page scripts/man-page writes from the built oton's help is valid mdoc (issue 39 §4:
/// `mandoc -T lint` warned 52 times) and says the volume range as the help does (it read "0100").
final class ManPageTests: XCTestCase {
    func testTheManPageLintsCleanAndReadsTheVolumeRange() throws {
        let directory = try TemporaryDirectory(self)
        let made = try runProcess(TestPaths.root + "/scripts/man-page", ["--oton", TestPaths.oton, "--out", directory.path, "--lint"])
        XCTAssertEqual(made.status, 0, "mandoc -T lint -W warning: \(made.stderr)")
        let page = directory.read("oton.1")
        XCTAssertTrue(page.contains(".Sh DESCRIPTION"), String(page.prefix(500)))
        XCTAssertTrue(page.contains("0 to 100, up to 150 amplified"), "the range as the help says it")
        XCTAssertFalse(page.contains("0100"), "no range with its dash dropped")
        let rendered = try runProcess("/usr/bin/env", ["mandoc", "-T", "ascii", directory.file("oton.1")])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        XCTAssertTrue(
            rendered.stdout.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "oton ctl sleep 30m" },
            "examples stay one per line: \(rendered.stdout.prefix(1500))")
    }
}
