import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// The path rule of docs/plugin-guide.md#file-permissions, one test per branch, on real
/// libraries compiled from Tests/Fixtures/probe_plugin.c whose ELF constructor leaves a
/// marker file: a refused library must never have run any code.
/// The tests run as root (as CI does); chown to uid 65534 plays "another user".
final class PluginPathSecurityTests: XCTestCase {
    private let otherUser: uid_t = 65534

    /// A probe library with its own id and a constructor marker, in `folder` (created 0755).
    private func library(in directory: TemporaryDirectory, folder: String, name: String) throws -> (path: String, marker: String) {
        let folderPath = directory.file(folder)
        try FileManager.default.createDirectory(atPath: folderPath, withIntermediateDirectories: true)
        chmod(folderPath, 0o755)
        let marker = directory.file("\(name).constructed")
        let built = try CPluginBuilder.build(
            CPluginBuilder.probeSource, into: directory, name: name,
            defines: [#"PROBE_ID="org.oton.test.\#(name)""#, #"PROBE_CONSTRUCTOR_MARKER="\#(marker)""#])
        let path = folderPath + "/lib\(name).so"
        try FileManager.default.moveItem(atPath: built, toPath: path)
        return (path, marker)
    }

    private func assertRefused(
        _ path: String, marker: String, containing expected: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try PluginLibrary(path: path), file: file, line: line) { error in
            guard case let .unsafeFile(_, reason) = error as? PluginLoadError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertTrue(reason.contains(expected), "\(reason) should contain \(expected)", file: file, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the refused library's constructor ran", file: file, line: line)
    }

    func testLibraryInSafeFolderLoadsAndItsConstructorRuns() throws {
        let directory = try TemporaryDirectory(self)
        let (path, marker) = try library(in: directory, folder: "safe", name: "safeprobe")
        XCTAssertEqual(try PluginLibrary(path: path).manifest.id, "org.oton.test.safeprobe")
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker), "the marker proves the refusal tests can fail")
    }

    func testSymlinkInSafeFolderToLibraryInWorldWritableFolderIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let (target, marker) = try library(in: directory, folder: "open", name: "linkedprobe")
        chmod(directory.file("open"), 0o777)
        try FileManager.default.createDirectory(atPath: directory.file("safe"), withIntermediateDirectories: true)
        let link = directory.file("safe/liblinkedprobe.so")
        XCTAssertEqual(symlink(target, link), 0)
        assertRefused(link, marker: marker, containing: "the directory \(directory.file("open")) is writable by every user (mode 777) and not sticky")
    }

    func testLibraryIn755FolderInside777FolderIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let (path, marker) = try library(in: directory, folder: "open/inner", name: "innerprobe")
        chmod(directory.file("open"), 0o777)
        assertRefused(
            path, marker: marker,
            containing:
                "the directory \(directory.file("open")) is writable by every user (mode 777) and not sticky, so anyone could replace \(directory.file("open/inner"))"
        )
    }

    func testLibraryInOwnFolderUnderStickySharedFolderLoads() throws {
        let directory = try TemporaryDirectory(self)
        let (path, marker) = try library(in: directory, folder: "shared/mine", name: "stickyprobe")
        chmod(directory.file("shared"), 0o1777)
        XCTAssertEqual(try PluginLibrary(path: path).manifest.id, "org.oton.test.stickyprobe")
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker))
    }

    func testFolderOfAnotherUserUnderStickySharedFolderIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let (path, marker) = try library(in: directory, folder: "shared/theirs", name: "theirsprobe")
        chmod(directory.file("shared"), 0o1777)
        XCTAssertEqual(chown(directory.file("shared/theirs"), otherUser, gid_t(otherUser)), 0)
        assertRefused(
            path, marker: marker,
            containing: "\(directory.file("shared/theirs")) belongs to another user (uid 65534) inside the shared directory \(directory.file("shared"))")
    }

    func testSymlinkOfAnotherUserInStickySharedFolderIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let (target, marker) = try library(in: directory, folder: "safe", name: "stickylinkprobe")
        try FileManager.default.createDirectory(atPath: directory.file("shared"), withIntermediateDirectories: true)
        chmod(directory.file("shared"), 0o1777)
        let link = directory.file("shared/libstickylinkprobe.so")
        XCTAssertEqual(symlink(target, link), 0)
        XCTAssertEqual(lchown(link, otherUser, gid_t(otherUser)), 0)
        // In a sticky folder only the link's owner can replace it: here, someone else.
        assertRefused(link, marker: marker, containing: "\(link) belongs to another user (uid 65534) inside the shared directory")
    }

    func testFolderOwnedByAnotherUserIsRefusedEvenWhenNotWritable() throws {
        let directory = try TemporaryDirectory(self)
        let (path, marker) = try library(in: directory, folder: "foreign", name: "foreignprobe")
        XCTAssertEqual(chown(directory.file("foreign"), otherUser, gid_t(otherUser)), 0)
        assertRefused(path, marker: marker, containing: "the directory \(directory.file("foreign")) belongs to another user (uid 65534)")
    }

    func testFileOwnedByAnotherUserIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let (path, marker) = try library(in: directory, folder: "safe", name: "foreignfileprobe")
        XCTAssertEqual(chown(path, otherUser, gid_t(otherUser)), 0)
        assertRefused(path, marker: marker, containing: "the file \(path) belongs to another user (uid 65534)")
    }

    func testFIFOIsRefusedAtOnceWithoutBeingOpened() throws {
        let directory = try TemporaryDirectory(self)
        let fifo = directory.file("libfifo.so")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let link = directory.file("liblink-to-fifo.so")
        XCTAssertEqual(symlink(fifo, link), 0)
        for path in [fifo, link] {
            let started = Date()
            XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
                XCTAssertEqual(error as? PluginLoadError, .notRegularFile(path: path, type: "a FIFO (named pipe)"))
                XCTAssertEqual(
                    "\(error)",
                    "\(path): refused: it is a FIFO (named pipe), not a regular file\n  hint: point \"path\" at the plugin's shared library file itself")
            }
            XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        }
    }

    func testDirectoryAndMissingFileAreReportedAsSuch() throws {
        let directory = try TemporaryDirectory(self)
        XCTAssertThrowsError(try PluginLibrary(path: directory.path)) { error in
            XCTAssertEqual(error as? PluginLoadError, .notRegularFile(path: directory.path, type: "a directory"))
        }
        let missing = directory.file("nothing/libnone.so")
        XCTAssertThrowsError(try PluginLibrary(path: missing)) { error in
            XCTAssertEqual(error as? PluginLoadError, .notFound(path: missing, searched: [missing]))
        }
    }

    func testRelativeLinksAndDotDotResolveLikeTheKernel() throws {
        let directory = try TemporaryDirectory(self)
        let (target, _) = try library(in: directory, folder: "real/lib", name: "dotdotprobe")
        try FileManager.default.createDirectory(atPath: directory.file("links"), withIntermediateDirectories: true)
        XCTAssertEqual(symlink("../real/lib", directory.file("links/lib")), 0)
        let checked = try PluginFileSecurity.check(directory.file("links/lib/../lib/libdotdotprobe.so"))
        XCTAssertEqual(checked.realPath, target)
    }

    func testTheBuiltBundledPluginsPassWhereverTheRepositoryIsCloned() throws {
        // CI clones under /tmp (sticky, 1777) or /work: the real build folder must pass the rule.
        let path = TestPaths.pluginLibrary("OtonSleepTimer")
        let checked = try PluginFileSecurity.check(path)
        XCTAssertEqual(checked.realPath, URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
    }
}
