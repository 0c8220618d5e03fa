import Foundation
import OtonTestSupport
import XCTest

/// `oton plugins validate ID` gives each check's child the entry's config from plugins.json on its
/// standard input (issue 53): a password in it is on no command line and in no environment of the
/// validator or any process under it while the checks run, and the checks still get all of it.
final class PluginValidateSecretTests: XCTestCase {
    func testTheEntrysConfigReachesTheChecksButNoCommandLine() throws {
        let directory = try TemporaryDirectory(self)
        let probe = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "validatesecret")
        let secret = "hunter2-" + UUID().uuidString
        let copies = directory.file("configs"), pids = directory.file("pids"), release = directory.file("release")
        // on_event waits for `release` (20 s at most): the children of the checks that feed it
        // events stay while the test looks at them.
        let config = #"{"password": "\#(secret)", "config_copy": "\#(copies)", "pid_file": "\#(pids)", "block_until": "\#(release)"}"#
        let plugins = try directory.write(
            "plugins.json", #"{"stations": [], "plugins": [{"id": "org.oton.test.probe", "path": "\#(probe)", "config": \#(config)}]}"#)

        let validator = Process()
        validator.executableURL = URL(fileURLWithPath: TestPaths.oton)
        validator.arguments = ["plugins", "validate", "org.oton.test.probe", "--config", plugins, "--timeout", "30"]
        validator.standardInput = FileHandle.nullDevice
        validator.standardOutput = FileHandle(forWritingAtPath: try directory.write("stdout.log", "")) ?? FileHandle.nullDevice
        validator.standardError = FileHandle(forWritingAtPath: try directory.write("stderr.log", "")) ?? FileHandle.nullDevice
        try validator.run()
        defer {
            // Released first: a check's child left behind by the kill ends its on_event at once.
            FileManager.default.createFile(atPath: release, contents: nil)
            if validator.isRunning { kill(validator.processIdentifier, SIGKILL) }
            validator.waitUntilExit()
        }

        // A child that ran create() with the entry's config and is still there.
        let running = { (lines: [String]) in
            lines.contains { pid_t($0).flatMap(ProcessTree.commandLine(of:))?.contains("validate-one") ?? false }
        }
        let created = waitForLines(pids, timeout: 60, until: running)
        XCTAssertTrue(running(created), "a check created the plugin: \(directory.read("stdout.log"))\(directory.read("stderr.log"))")
        ProcessTree.assertNowhereVisible(secret, under: validator.processIdentifier, atLeast: 1, runningWith: "validate-one", "while the checks run")
        FileManager.default.createFile(atPath: release, contents: nil)

        let deadline = Date().addingTimeInterval(240)
        while validator.isRunning, Date() < deadline { usleep(50_000) }
        XCTAssertFalse(validator.isRunning, "the validation ended: \(directory.read("stdout.log"))")
        let configs = directory.read("configs").split(separator: "\n")
        XCTAssertFalse(configs.isEmpty, "create() got the config: \(directory.read("stdout.log"))")
        XCTAssertTrue(configs.allSatisfy { $0.contains(#""password":"\#(secret)""#) }, "every create() got the whole config: \(configs)")
    }
}
