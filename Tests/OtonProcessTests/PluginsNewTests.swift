import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `oton plugins new` (issue 38 §3): a project outside the tree that builds with make against the SDK
/// found through pkg-config, warning-free, and passes `oton plugins validate` as generated.
final class PluginsNewTests: XCTestCase {
    /// Makes, builds and validates a project; returns the library's path.
    static func makeProject(_ name: String, kind: String, in directory: TemporaryDirectory, file: StaticString = #filePath, line: UInt = #line) throws -> String
    {
        let made = try runProcess(TestPaths.oton, ["plugins", "new", name, "--kind", kind, "--into", directory.path])
        XCTAssertEqual(made.status, 0, made.stderr, file: file, line: line)
        let folder = directory.file(name)
        var environment = ProcessInfo.processInfo.environment
        environment["PKG_CONFIG_PATH"] = try PluginSDKFolder.make(in: directory)
        environment["PATH"] = (TestPaths.oton as NSString).deletingLastPathComponent + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let build = try runProcess("/usr/bin/env", ["make", "-C", folder, "CFLAGS=-O2 -Wall -Wextra -pedantic -Werror"], environment: environment)
        XCTAssertEqual(build.status, 0, build.stdout + build.stderr, file: file, line: line)
        let check = try runProcess("/usr/bin/env", ["make", "-C", folder, "check"], environment: environment)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr, file: file, line: line)
        XCTAssertTrue(check.stdout.contains("all checks passed\n"), check.stdout, file: file, line: line)
        return folder + "/lib" + name.replacingOccurrences(of: "-", with: "_") + ".so"
    }

    func testASinkAndACommandProjectBuildWithoutWarningsAndPassValidate() throws {
        let directory = try TemporaryDirectory(self)
        let sink = try Self.makeProject("now-playing-file", kind: "sink", in: directory)
        let inspect = try runProcess(TestPaths.oton, ["plugins", "inspect", sink])
        XCTAssertTrue(inspect.stdout.contains("id:          org.example.now-playing-file\n"), inspect.stdout)
        XCTAssertTrue(inspect.stdout.contains("  file: text\n"), "its setting is declared: \(inspect.stdout)")
        let command = try Self.makeProject("track-counter", kind: "command", in: directory)
        let commands = try runProcess(TestPaths.oton, ["plugins", "inspect", command])
        XCTAssertTrue(commands.stdout.contains("  track-counter-count\n"), commands.stdout)
    }

    func testBadInputIsRefusedAndNothingIsOverwritten() throws {
        let directory = try TemporaryDirectory(self)
        for (arguments, words) in [
            (["Bad Name"], "cannot name a plugin"), (["ok", "--lang", "swift"], "only c projects"),
            (["ok", "--kind", "filter"], "give sink or command"), (["ok", "--id", "noDots"], "not a reverse-DNS name"),
        ] {
            let result = try runProcess(TestPaths.oton, ["plugins", "new"] + arguments + ["--into", directory.path])
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "nothing written")
        try FileManager.default.createDirectory(atPath: directory.file("taken"), withIntermediateDirectories: false)
        _ = try directory.write("taken/mine.c", "mine")
        let taken = try runProcess(TestPaths.oton, ["plugins", "new", "taken", "--into", directory.path])
        XCTAssertEqual(taken.status, 2)
        XCTAssertTrue(taken.stderr.contains("already exists; nothing was written"), taken.stderr)
        XCTAssertEqual(directory.read("taken/mine.c"), "mine")
    }
}
