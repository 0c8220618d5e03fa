import Foundation
import OtonTestSupport
import XCTest

/// oton from an empty folder with no configuration anywhere: it plays, and `oton config` says why.
final class NoConfigTests: XCTestCase {
    private func environment(_ directory: TemporaryDirectory) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["OTON_CONFIG"] = nil
        environment["HOME"] = directory.file("home")
        environment["XDG_CONFIG_HOME"] = directory.file("xdg")
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        environment["XDG_RUNTIME_DIR"] = directory.file("run")
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"
        return environment
    }

    func testALocalFilePlaysFromAnEmptyFolderWithTheBuiltInDefault() throws {
        let directory = try TemporaryDirectory(self)
        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let audio = directory.file("tone.ogg")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=50", "!", "audioconvert", "!",
                    "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let events = directory.file("events.jsonl")
        let result = try runProcess(
            TestPaths.oton, ["play", audio, "--headless", "--no-tui", "--events", events],
            environment: environment(directory), currentDirectory: empty)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("no plugins.json"), result.stderr)
        XCTAssertTrue(directory.read("events.jsonl").contains(#""state":"playing""#))
        // The built-in default loads the bundled plugins found beside the executable.
        XCTAssertTrue(
            directory.read("events.jsonl").contains(#""source":"org.oton.sleep-timer""#)
                || FileManager.default.fileExists(atPath: directory.file("data") + "/oton"), result.stderr)
    }

    /// Issue 54 §13: the first `oton stations add` writes the user's plugins.json from the built-in default; an
    /// oton already playing on that default now re-reads it and has the new station for n/p (it answered "there
    /// is no file to reload" and kept its old list until restarted).
    func testTheFirstStationsAddReachesAnOtonPlayingOnTheBuiltInDefault() throws {
        let directory = try TemporaryDirectory(self)
        let environment = environment(directory)
        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let audio = directory.file("long.ogg")  // about 70 s: it plays while the station is added
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=3000", "!", "audioconvert", "!",
                    "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let player = Process()
        player.executableURL = URL(fileURLWithPath: TestPaths.oton)
        player.arguments = ["play", audio, "--headless", "--no-tui"]
        player.environment = environment
        player.currentDirectoryURL = URL(fileURLWithPath: empty)
        player.standardOutput = FileHandle.nullDevice
        player.standardError = FileHandle.nullDevice
        try player.run()
        defer {
            player.terminate()
            player.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(60)
        var answered = false
        while !answered, Date() < deadline, player.isRunning {
            answered = try runProcess(TestPaths.oton, ["ctl", "status"], environment: environment, currentDirectory: empty).status == 0
            if !answered { usleep(200_000) }
        }
        XCTAssertTrue(answered, "oton play answers on its socket")

        let add = try runProcess(
            TestPaths.oton, ["stations", "add", "Added FM", "http://127.0.0.1:9/added"], environment: environment, currentDirectory: empty)
        XCTAssertEqual(add.status, 0, add.stderr)
        let file = directory.file("xdg") + "/oton/plugins.json"
        XCTAssertTrue(add.stderr.contains("created \(file) from the built-in default"), add.stderr)
        XCTAssertTrue(add.stderr.contains("reloaded from \(file)"), add.stderr)
        let stations = try runProcess(TestPaths.oton, ["ctl", "stations"], environment: environment, currentDirectory: empty)
        XCTAssertTrue(stations.stdout.contains("Added FM"), stations.stdout + stations.stderr)
    }

    func testConfigPathSaysWhichFileAndWhyAndInitNeverOverwrites() throws {
        let directory = try TemporaryDirectory(self)
        let environment = environment(directory)
        let before = try runProcess(TestPaths.oton, ["config", "path"], environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertEqual(before.stdout, "(built-in default)\n")
        XCTAssertTrue(before.stderr.contains("no plugins.json found") && before.stderr.contains("oton config init"), before.stderr)

        let made = try runProcess(TestPaths.oton, ["config", "init"], environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(made.status, 0, made.stderr)
        let file = directory.file("xdg") + "/oton/plugins.json"
        XCTAssertEqual(made.stdout, file + "\n")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertEqual(written, try String(contentsOfFile: TestPaths.root + "/plugins.json", encoding: .utf8))

        let after = try runProcess(TestPaths.oton, ["config", "path"], environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(after.stdout, file + "\n")
        XCTAssertTrue(after.stderr.contains("the user's configuration"), after.stderr)

        try "{\"stations\": [], \"plugins\": []}".write(toFile: file, atomically: true, encoding: .utf8)
        let again = try runProcess(TestPaths.oton, ["config", "init"], environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "{\"stations\": [], \"plugins\": []}", "the user's file is untouched")
    }

    /// A relative XDG_CONFIG_HOME is ignored by the spec and by `oton play`: `config init` writes the
    /// file `play` and `config path` read (under $HOME/.config), not one relative to the folder it ran in.
    func testInitWritesWherePlayReadsWhenXDGConfigHomeIsRelative() throws {
        let directory = try TemporaryDirectory(self)
        var environment = environment(directory)
        environment["XDG_CONFIG_HOME"] = "relative-config"
        let made = try runProcess(TestPaths.oton, ["config", "init"], environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(made.status, 0, made.stderr)
        let file = directory.file("home") + "/.config/oton/plugins.json"
        XCTAssertEqual(made.stdout, file + "\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("relative-config")), "nothing relative to the working folder")
        let path = try runProcess(TestPaths.oton, ["config", "path"], environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(path.stdout, file + "\n", "play reads the file init wrote: \(path.stderr)")
    }

    /// Issue 39: `oton plugins list` printed ".../release/(built-in default):" (the path it resolves plugins beside).
    func testPluginsListNamesTheBuiltInDefaultAsSuch() throws {
        let directory = try TemporaryDirectory(self)
        let listed = try runProcess(TestPaths.oton, ["plugins", "list"], environment: environment(directory), currentDirectory: directory.path)
        XCTAssertEqual(listed.stdout.split(separator: "\n").first, "plugins from (built-in default):", listed.stdout + listed.stderr)
    }
}
