import Foundation
import OtonTestSupport
import XCTest

/// scripts/install into a temporary prefix, from the debug products the tests already have;
/// then the two C examples are built against the install with pkg-config, one cc line each,
/// and the installed oton loads them.
final class InstallScriptTests: XCTestCase {
    private func environment(_ directory: TemporaryDirectory) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        environment["XDG_DATA_HOME"] = directory.file("xdg")
        environment["XDG_CONFIG_HOME"] = directory.file("config")
        environment["PKG_CONFIG_PATH"] = directory.file("prefix/lib/pkgconfig")
        return environment
    }

    func testInstalledPrefixBuildsTheExamplesWithPkgConfigAndFindsEveryPlugin() throws {
        let directory = try TemporaryDirectory(self)
        let prefix = directory.file("prefix")
        let environment = environment(directory)
        let install = try runProcess(TestPaths.root + "/scripts/install", ["--prefix", prefix, "--from", TestPaths.products],
                                     environment: environment)
        XCTAssertEqual(install.status, 0, install.stderr)

        let fileManager = FileManager.default
        for installed in ["bin/oton", "include/oton/oton_plugin.h", "lib/pkgconfig/oton-plugin.pc",
                          "lib/oton/plugins/libOtonHistory.so", "lib/oton/plugins/libOtonFileSink.so",
                          "share/oton/locale/ru.po", "share/bash-completion/completions/oton",
                          "share/doc/oton/examples/c-level-meter/oton_level_meter.c",
                          "lib/oton/plugins/libOtonSnapcast.so", "share/oton/snapcast/oton-snapcast-control"] {
            XCTAssertTrue(fileManager.fileExists(atPath: prefix + "/" + installed), "missing \(installed)")
        }
        XCTAssertTrue(fileManager.isExecutableFile(atPath: prefix + "/share/oton/snapcast/oton-snapcast-control"), "snapserver runs the control script")
        XCTAssertTrue(fileManager.fileExists(atPath: directory.file("xdg/oton/plugins")), "the user plugin folder")

        // The examples, copied out of the install into a directory of their own, as a third party has them.
        let examples: [(source: String, library: String, id: String)] = [
            ("c-logger/oton_event_logger.c", "liboton_event_logger.so", "org.example.event-logger"),
            ("c-level-meter/oton_level_meter.c", "liboton_level_meter.so", "org.example.level-meter"),
        ]
        let work = directory.file("work")
        try fileManager.createDirectory(atPath: work, withIntermediateDirectories: true)
        for example in examples {
            let source = work + "/" + (example.source as NSString).lastPathComponent
            try fileManager.copyItem(atPath: prefix + "/share/doc/oton/examples/" + example.source, toPath: source)
            let line = "cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -fvisibility=hidden "
                + "$(pkg-config --cflags oton-plugin) '\(source)' -o '\(work)/\(example.library)' -lm"
            let cc = try runProcess("/bin/sh", ["-c", line], environment: environment)
            XCTAssertEqual(cc.status, 0, "\(line)\n\(cc.stderr)")
            let inspect = try runProcess(prefix + "/bin/oton", ["plugins", "inspect", work + "/" + example.library], environment: environment)
            XCTAssertEqual(inspect.status, 0, inspect.stderr)
            XCTAssertTrue(inspect.stdout.contains("id:          \(example.id)"), inspect.stdout)
        }
        let flags = try runProcess("/usr/bin/env", ["pkg-config", "--cflags", "oton-plugin"], environment: environment)
        XCTAssertEqual(flags.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "-I\(prefix)/include/oton")

        // A bare name is found in the install's plugin directory, then in the user plugin folder.
        let bundled = try runProcess(prefix + "/bin/oton", ["plugins", "inspect", "libOtonHistory.so"], environment: environment)
        XCTAssertTrue(bundled.stdout.contains("path:        \(prefix)/lib/oton/plugins/libOtonHistory.so"), bundled.stdout + bundled.stderr)
        try fileManager.moveItem(atPath: work + "/liboton_level_meter.so", toPath: directory.file("xdg/oton/plugins/liboton_level_meter.so"))
        let user = try runProcess(prefix + "/bin/oton", ["plugins", "inspect", "liboton_level_meter.so"], environment: environment)
        XCTAssertTrue(user.stdout.contains("path:        \(directory.file("xdg/oton/plugins/liboton_level_meter.so"))"), user.stdout + user.stderr)
    }

    func testARelativePrefixIsRefusedWithAReason() throws {
        let directory = try TemporaryDirectory(self)
        let install = try runProcess(TestPaths.root + "/scripts/install", ["--prefix", "relative/prefix", "--from", TestPaths.products],
                                     environment: environment(directory))
        XCTAssertEqual(install.status, 2)
        XCTAssertTrue(install.stderr.contains("must be an absolute path"), install.stderr)
    }
}
