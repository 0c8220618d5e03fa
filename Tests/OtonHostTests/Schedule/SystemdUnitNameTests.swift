import Foundation
import XCTest

@testable import OtonHost

/// Show names → unit names exactly as `systemd-escape` makes them, and back.
final class SystemdUnitNameTests: XCTestCase {
    private let names = ["Jazz Hour", "Jazz Hour/ä.-x", ".hidden", "a-b_c:d.e", "Кино 20:00", "100% \"live\" \\ $HOME", "x"]

    func testEscapingMatchesSystemdEscape() throws {
        for name in names {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["systemd-escape", "--", name]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            XCTAssertEqual(SystemdUnitName.escape(name), output.trimmingCharacters(in: .newlines), name)
        }
    }

    func testUnescapingGivesTheNameBack() {
        XCTAssertEqual(SystemdUnitName.escape("Jazz Hour"), #"Jazz\x20Hour"#)
        XCTAssertEqual(SystemdUnitName.timer(for: "Jazz Hour"), #"oton-schedule-Jazz\x20Hour.timer"#)
        for name in names {
            XCTAssertEqual(SystemdUnitName.unescape(SystemdUnitName.escape(name)), name)
        }
        XCTAssertNil(SystemdUnitName.unescape(#"bad\x2"#))
    }
}
