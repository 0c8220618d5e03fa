import Foundation
import OtonTestSupport
import XCTest

/// `oton alarm` as a person runs it on a machine without a systemd user manager (this one, CI).
final class AlarmCommandTests: XCTestCase {
    private var environment: [String: String] = [:]
    private var units = ""

    override func setUpWithError() throws {
        let home = try HomeWithoutUserManager(self)
        environment = home.environment
        units = home.units
    }

    private func oton(_ arguments: String...) throws -> ProcessResult {
        try runProcess(TestPaths.oton, ["alarm"] + arguments, environment: environment)
    }

    func testAddListRemoveWithoutAUserManager() throws {
        let added = try oton("add", "07:00", "--station", "Oton FM", "--days", "mon-fri", "--fade-in", "2m", "--volume", "40")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains("no systemd user manager runs"), added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("0 7 * * 1-5 '"), "the crontab line: \(added.stdout)")
        XCTAssertTrue(added.stdout.contains("'play' '--alarm' '--fade-in=120s' '--volume=40' '--' 'Oton FM'"), added.stdout)
        let timer = units + "/oton-alarm-1.timer", service = units + "/oton-alarm-1.service"
        let verify = try runProcess("/usr/bin/env", ["systemd-analyze", "verify", "--man=no", timer, service])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertEqual(try oton("add", "Sat", "09:30", "--station", "Jazz 24").status, 0, "a weekday and a time as two words")

        let listed = try oton("list")
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, listed.stdout)
        XCTAssertTrue(lines[0].hasPrefix("1  07:00 mon-fri  Oton FM  fade-in 2m  volume 40%  next "), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("fires only while the machine is awake (user timer; --wake for a system timer)"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("2  09:30 sat  Jazz 24  next Sat "), lines[1])

        let removed = try oton("remove", "1")
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: timer))
        XCTAssertFalse(FileManager.default.fileExists(atPath: service))
        XCTAssertEqual(try oton("remove", "1").status, 2, "a second remove finds nothing")
        XCTAssertEqual(try oton("add", "06:00", "--station", "Jazz 24").stdout.contains("'--' 'Jazz 24'"), true)
        XCTAssertTrue(FileManager.default.fileExists(atPath: units + "/oton-alarm-1.timer"), "the freed number is used again")
    }

    func testBadInputIsRefusedWithTheAcceptedFormsAndWritesNothing() throws {
        for arguments in [
            ["7am"], ["25:00"], ["tomorrow", "07:00"], ["07:00", "--days", "weekends"], ["Tue 07:00", "--days", "mon"],
            ["07:00", "--fade-in", "2"], ["07:00", "--volume", "0.4"],
        ] {
            let result = try runProcess(TestPaths.oton, ["alarm", "add"] + arguments + ["--station", "Oton FM"], environment: environment)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments) says why")
        }
        let refused = try oton("add", "7am", "--station", "Oton FM")
        XCTAssertTrue(refused.stderr.contains("HH:MM (every day)") && refused.stderr.contains("YYYY-MM-DD HH:MM (once)"), refused.stderr)
        XCTAssertNil(try? FileManager.default.contentsOfDirectory(atPath: units).filter { $0.hasSuffix(".timer") }.first, "nothing written")
    }

    /// `--wake` without root writes nothing and prints the one command that does it with sudo.
    func testWakeWithoutRootPrintsTheSudoCommandAndWritesNothing() throws {
        var arguments = ["alarm", "add", "07:00", "--station", "Oton FM", "--days", "mon-fri", "--wake"]
        var program = TestPaths.oton
        if geteuid() == 0 {  // as root (a CI container): the same as an ordinary user
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") else { throw XCTSkip("runs as root without runuser") }
            program = "/usr/sbin/runuser"
            let home = environment["HOME"]!
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: home)
            // nobody may not reach the clone (root's home is 0700, as is a `mktemp -d` folder): it runs a copy
            // in its home (with LANG=C oton needs nothing else from the build folder).
            let copy = home + "/oton"
            try FileManager.default.copyItem(atPath: TestPaths.oton, toPath: copy)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
            guard try runProcess(program, ["-u", "nobody", "--", "test", "-x", copy]).status == 0 else {
                throw XCTSkip("nobody cannot run \(copy): the temporary folder \(NSTemporaryDirectory()) is closed to it")
            }
            arguments = ["-u", "nobody", "--", "env", "HOME=\(home)", "XDG_CONFIG_HOME=\(home)/config", "LANG=C", copy] + arguments
        }
        let result = try runProcess(program, arguments, environment: environment)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("needs a system timer, which only root may write"), result.stderr)
        XCTAssertTrue(
            result.stdout.hasPrefix("sudo ") && result.stdout.contains(" alarm add 07:00 --station 'Oton FM' --days mon-fri --wake"),
            result.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: units), "nothing written")
    }
}
