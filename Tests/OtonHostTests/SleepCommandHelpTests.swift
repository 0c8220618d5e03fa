import OtonTestSupport
import SleepTimerLogic
import XCTest

@testable import OtonHost

/// The sleep command's help (`oton ctl commands`, `oton plugins inspect`) offers only durations
/// the command accepts: it used to offer `sleep … 45`, which is refused since a bare number has no unit.
final class SleepCommandHelpTests: XCTestCase {
    func testEveryDurationTheHelpOffersParses() throws {
        let manifest = try PluginLibrary(path: TestPaths.pluginLibrary("OtonSleepTimer")).manifest
        let sleep = try XCTUnwrap(manifest.commands.first { $0.name == "sleep" })
        // The examples are the parenthesised list: "set the sleep timer (90s, 30m, …), stop after …".
        let open = try XCTUnwrap(sleep.help.firstIndex(of: "("), sleep.help)
        let close = try XCTUnwrap(sleep.help[open...].firstIndex(of: ")"), sleep.help)
        let offered = sleep.help[sleep.help.index(after: open)..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertGreaterThanOrEqual(offered.count, 3, sleep.help)
        for duration in offered {
            XCTAssertNoThrow(try SleepDuration.parse(duration), "the help offers \"\(duration)\", which sleep refuses")
        }
    }
}
