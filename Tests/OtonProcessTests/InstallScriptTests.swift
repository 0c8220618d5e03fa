import Foundation
import OtonTestSupport
import PluginAPI
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
        let install = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", prefix, "--from", TestPaths.products],
            environment: environment)
        XCTAssertEqual(install.status, 0, install.stderr)

        let fileManager = FileManager.default
        for installed in [
            "bin/oton", "include/oton/oton_plugin.h", "lib/pkgconfig/oton-plugin.pc",
            "lib/oton/plugins/libOtonHistory.so", "lib/oton/plugins/libOtonFileSink.so",
            "share/oton/locale/ru.po", "share/oton/now-playing/providers.json", "share/bash-completion/completions/oton",
            "share/doc/oton/examples/c-level-meter/oton_level_meter.c",
            "lib/oton/plugins/libOtonSnapcast.so", "share/oton/snapcast/oton-snapcast-control",
            "lib/oton/plugins/libOtonRecognition.so",
        ] {
            XCTAssertTrue(fileManager.fileExists(atPath: prefix + "/" + installed), "missing \(installed)")
        }
        XCTAssertFalse(fileManager.fileExists(atPath: directory.file("xdg/oton")), "--prefix writes nothing outside the prefix")
        XCTAssertTrue(install.stdout.contains("not created"), install.stdout)
        // Asked for, the user plugin folder is made, for the user only.
        let again = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", prefix, "--from", TestPaths.products, "--user-folder"],
            environment: environment)
        XCTAssertEqual(again.status, 0, again.stderr)
        let attributes = try fileManager.attributesOfItem(atPath: directory.file("xdg/oton/plugins"))
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o700, "the user plugin folder")
        XCTAssertTrue(fileManager.isExecutableFile(atPath: prefix + "/share/oton/snapcast/oton-snapcast-control"), "snapserver runs the control script")

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
            let line =
                "cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -fvisibility=hidden "
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

    /// The issue's case: `--prefix` with no XDG_DATA_HOME created ~/.local/share/oton/plugins.
    func testAPrefixInstallLeavesHomeAlone() throws {
        let directory = try TemporaryDirectory(self)
        var environment = environment(directory)
        environment["XDG_DATA_HOME"] = nil
        environment["PREFIX"] = nil
        let install = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", directory.file("prefix"), "--from", TestPaths.products],
            environment: environment)
        XCTAssertEqual(install.status, 0, install.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.file("prefix/bin/oton")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file(".local")), "nothing in ~/.local: \(install.stdout)")
        XCTAssertTrue(install.stdout.contains("\(directory.path)/.local/share/oton/plugins (not created"), install.stdout)
    }

    /// scripts/package-deb stages the install with --destdir: the files land under DESTDIR/prefix, while
    /// what they say names the prefix the package installs to (/usr), never the staging root.
    func testADestdirStagesTheFilesAndTheyNameThePrefix() throws {
        let directory = try TemporaryDirectory(self)
        let stage = directory.file("stage")
        let install = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", "/usr", "--destdir", stage, "--from", TestPaths.products],
            environment: environment(directory))
        XCTAssertEqual(install.status, 0, install.stderr)
        let fileManager = FileManager.default
        for installed in ["bin/oton", "lib/oton/plugins/libOtonHistory.so", "include/oton/oton_plugin.h", "share/metainfo/org.oton.Oton.metainfo.xml"] {
            XCTAssertTrue(fileManager.fileExists(atPath: stage + "/usr/" + installed), "missing \(installed)")
        }
        let entry = try String(contentsOfFile: stage + "/usr/share/applications/org.oton.Oton.desktop", encoding: .utf8)
        XCTAssertTrue(entry.contains("\nExec=\"/usr/bin/oton\" window\n"), "Exec= names the installed path: \(entry)")
        let pc = try String(contentsOfFile: stage + "/usr/lib/pkgconfig/oton-plugin.pc", encoding: .utf8)
        XCTAssertTrue(pc.hasPrefix("prefix=/usr\n"), pc)
        XCTAssertFalse(entry.contains(stage) || pc.contains(stage), "the staging root leaked into a file")
        XCTAssertEqual(try fileManager.contentsOfDirectory(atPath: stage), ["usr"], "nothing outside DESTDIR/prefix")
        XCTAssertFalse(fileManager.fileExists(atPath: directory.file("xdg/oton")), "no user plugin folder")
        let relative = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", "/usr", "--destdir", "relative/stage", "--from", TestPaths.products],
            environment: environment(directory))
        XCTAssertEqual(relative.status, 2)
        XCTAssertTrue(relative.stderr.contains("the destdir must be an absolute path"), relative.stderr)
    }

    /// The plugin guide's Swift recipe ("Outside this repository"), taken from the guide itself: a
    /// SwiftPM package whose system-library target finds the installed header through oton-plugin.pc
    /// builds a plugin that exports only its entry point and that the installed oton inspects.
    func testTheGuidesSwiftPackageRecipeBuildsAgainstTheInstalledHeader() throws {
        let directory = try TemporaryDirectory(self)
        let prefix = directory.file("prefix")
        let environment = environment(directory)
        let install = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", prefix, "--from", TestPaths.products],
            environment: environment)
        XCTAssertEqual(install.status, 0, install.stderr)

        let guide = try String(contentsOfFile: TestPaths.root + "/docs/plugin-guide.md", encoding: .utf8)
        let start = try XCTUnwrap(guide.range(of: "### Outside this repository\n"))
        let section = String(guide[start.upperBound...]).components(separatedBy: "\n### ")[0]
        // Each file is a "`NAME`:" line, a blank line, then a fenced block.
        let pattern = try NSRegularExpression(pattern: "^`([^`]+)`:\n\n```[a-z]*\n(.*?)```", options: [.anchorsMatchLines, .dotMatchesLineSeparators])
        let package = directory.file("package")
        var written: [String] = []
        for match in pattern.matches(in: section, range: NSRange(section.startIndex..., in: section)) {
            let name = String(section[Range(match.range(at: 1), in: section)!])
            let text = String(section[Range(match.range(at: 2), in: section)!])
            let path = package + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            written.append(name)
        }
        XCTAssertEqual(written.sorted(), ["Package.swift", "Sources/PluginAPI/module.modulemap", "Sources/PluginAPI/shim.h", "exports.map"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: package + "/Sources/PluginAPI/oton_plugin.h"), "nothing copied")
        try FileManager.default.createDirectory(atPath: package + "/Sources/MyPlugin", withIntermediateDirectories: true)
        try """
        import Glibc
        import PluginAPI

        private let descriptor: UnsafeMutablePointer<oton_plugin_descriptor> = {
            let pointer = UnsafeMutablePointer<oton_plugin_descriptor>.allocate(capacity: 1)
            pointer.initialize(to: oton_plugin_descriptor())
            pointer.pointee.struct_size = UInt32(MemoryLayout<oton_plugin_descriptor>.size)
            pointer.pointee.abi_major = OTON_ABI_MAJOR
            pointer.pointee.abi_minor = OTON_ABI_MINOR
            pointer.pointee.id = UnsafePointer(strdup("org.example.swift-recipe")!)
            pointer.pointee.name = UnsafePointer(strdup("Swift recipe")!)
            pointer.pointee.version = UnsafePointer(strdup("1.0.0")!)
            pointer.pointee.create = { _, _, _, _ in UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1) }
            pointer.pointee.destroy = { instance in instance?.deallocate() }
            return pointer
        }()

        @_cdecl("oton_plugin_entry")
        public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> { UnsafePointer(descriptor) }

        """.write(toFile: package + "/Sources/MyPlugin/MyPlugin.swift", atomically: true, encoding: .utf8)

        var buildEnvironment = environment
        buildEnvironment["HOME"] = ProcessInfo.processInfo.environment["HOME"]  // SwiftPM's caches, as a person has them
        let build = try runProcess("/usr/bin/env", ["swift", "build", "--package-path", package], environment: buildEnvironment)
        XCTAssertEqual(build.status, 0, build.stdout + build.stderr)
        let library = package + "/.build/debug/libMyPlugin.so"
        let nm = try runProcess("/usr/bin/env", ["nm", "-D", "--defined-only", library])
        let exported = nm.stdout.split(separator: "\n").filter { $0.split(separator: " ").dropFirst().first?.first?.isUppercase == true }
        XCTAssertEqual(exported.compactMap { $0.split(separator: " ").last.map(String.init) }, ["oton_plugin_entry"])
        let inspect = try runProcess(prefix + "/bin/oton", ["plugins", "inspect", library], environment: environment)
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("id:          org.example.swift-recipe"), inspect.stdout)
    }

    func testARelativePrefixIsRefusedWithAReason() throws {
        let directory = try TemporaryDirectory(self)
        let install = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", "relative/prefix", "--from", TestPaths.products],
            environment: environment(directory))
        XCTAssertEqual(install.status, 2)
        XCTAssertTrue(install.stderr.contains("must be an absolute path"), install.stderr)
    }
}

/// Issue 38 §3: the installed plugin guide is self-contained — every relative link of every installed
/// document names an installed file, and every #anchor a heading of it.
final class InstalledDocsLinkTests: XCTestCase {
    /// GitHub's heading anchors: lower case, punctuation but '-' and '_' dropped, spaces as '-', repeats numbered.
    static func anchors(_ markdown: String) -> Set<String> {
        var found = Set<String>()
        var seen: [String: Int] = [:]
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard !inCode, line.hasPrefix("#") else { continue }
            let text = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "")
            var slug = String(
                text.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " " }
                    .map(Character.init)
            ).replacingOccurrences(of: " ", with: "-")
            if let count = seen[slug] { seen[slug] = count + 1; slug += "-\(count + 1)" } else { seen[slug] = 0 }
            found.insert(slug)
        }
        return found
    }

    /// Relative link targets outside code blocks: (file or "", anchor or "").
    static func links(_ markdown: String) -> [(file: String, anchor: String)] {
        var out: [(String, String)] = []
        var inCode = false
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard !inCode else { continue }
            for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                let target = String(line[Range(match.range(at: 1), in: line)!])
                if target.hasPrefix("http:") || target.hasPrefix("https:") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                out.append((parts[0], parts.count > 1 ? parts[1] : ""))
            }
        }
        return out
    }

    func testEveryLinkOfTheInstalledDocsResolvesInsideThem() throws {
        let directory = try TemporaryDirectory(self)
        let prefix = directory.file("prefix")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.file("xdg")
        let install = try runProcess(TestPaths.root + "/scripts/install", ["--prefix", prefix, "--from", TestPaths.products], environment: environment)
        XCTAssertEqual(install.status, 0, install.stderr)
        let docs = prefix + "/share/doc/oton"
        let files = try FileManager.default.contentsOfDirectory(atPath: docs).filter { $0.hasSuffix(".md") }
        XCTAssertTrue(files.contains("plugin-guide.md") && files.contains("configuration.md"), "\(files)")
        var checked = 0
        for file in files {
            let text = try String(contentsOfFile: docs + "/" + file, encoding: .utf8)
            for link in Self.links(text) {
                checked += 1
                let target = link.file.isEmpty ? file : link.file
                let path = (docs as NSString).appendingPathComponent(target)
                XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(file): (\(link.file)#\(link.anchor)) is not installed")
                guard !link.anchor.isEmpty, target.hasSuffix(".md"), let targetText = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
                XCTAssertTrue(Self.anchors(targetText).contains(link.anchor), "\(file): #\(link.anchor) is no heading of \(target)")
            }
        }
        XCTAssertGreaterThan(checked, 50, "the guide links to itself and to its neighbours")
        let guide = try String(contentsOfFile: docs + "/plugin-guide.md", encoding: .utf8)
        XCTAssertTrue(guide.contains("examples/snapcast-sink/SnapcastPlugin.swift"), "the worked example is linked")
        XCTAssertTrue(guide.contains("ABI 1.\(OTON_ABI_MINOR) (`OTON_ABI_MAJOR 1`, `OTON_ABI_MINOR \(OTON_ABI_MINOR)`)"), "its version text is the header's")
        let info = try String(contentsOfFile: docs + "/BUILD-INFO", encoding: .utf8)
        XCTAssertTrue(info.contains("swift: Swift version "), info)
    }
}
