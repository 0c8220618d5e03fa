import XCTest

@testable import OtonHost

/// What `oton stations search` says when the directory cannot be used: the cause in words, the exit
/// code the README promises, and never the failed server as the fix.
final class DirectoryErrorTests: XCTestCase {
    func testADirectoryNameThatDoesNotResolveIsNoNetwork() {
        // What an offline machine meets: the pool name does not resolve (.invalid never does).
        XCTAssertThrowsError(try DirectoryServerSetting.choose(flag: nil, configFile: nil, pool: "all.api.radio-browser.invalid")) { error in
            guard let error = error as? DirectoryError, case .noNetwork = error else { return XCTFail("\(error)") }
            XCTAssertTrue(error.description.contains("cannot be reached: there seems to be no network"), error.description)
            XCTAssertTrue(error.description.contains("check the network connection"), error.description)
            XCTAssertFalse(error.description.contains("radio-browser.info"), "another server of the pool would fail the same way: \(error.description)")
            XCTAssertFalse(error.isUsageError, "exit 1, as the README says for a directory that cannot be reached")
        }
    }

    func testTheHintNeverOffersTheServerThatFailed() {
        for failed in DirectoryError.examples {
            let error = DirectoryError.unreachable(server: failed, reason: .http(status: 503))
            let hint = error.description.split(separator: "\n").last.map(String.init) ?? ""
            XCTAssertTrue(hint.contains("--server"), hint)
            XCTAssertFalse(hint.contains(failed), "\(failed) just failed: \(hint)")
        }
        let offline = DirectoryError.unreachable(server: "https://de1.api.radio-browser.info", reason: .hostNotFound("Could not resolve host"))
        XCTAssertTrue(offline.description.contains("no network"), offline.description)
        XCTAssertFalse(offline.description.contains("--server"), offline.description)
    }

    func testOnlyABadServerIsAUsageError() {
        XCTAssertTrue(DirectoryError.badServer("x").isUsageError)
        XCTAssertFalse(DirectoryError.noServer(reason: "none").isUsageError)
        XCTAssertFalse(DirectoryError.unreachable(server: "http://x", reason: .timedOut(milliseconds: 1)).isUsageError)
    }
}
