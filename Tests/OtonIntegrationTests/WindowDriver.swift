import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window` on a ``DesktopSession``, with its own XDG folders and plugins.json, driven through
/// AT-SPI by Tests/Fixtures/window/atspi_driver.py as a screen reader would, and checked through
/// `oton ctl`. Teardown ends the window and every process below it (the player it started).
final class WindowDriver: @unchecked Sendable {  // its state is set up once; `window` only by the test's own thread
    let desktop: DesktopSession
    let directory: TemporaryDirectory
    let environment: [String: String]
    let config: String
    private(set) var window: ManagedProcess?

    static let script = TestPaths.root + "/Tests/Fixtures/window/atspi_driver.py"
    /// Screenshots land here, kept after the run (`.build/test-output/window`).
    static let outputFolder = TestPaths.root + "/.build/test-output/window"

    /// `extra`: more environment for the window (ADW_DEBUG_COLOR_SCHEME=prefer-dark: a system that prefers dark).
    init(_ testCase: XCTestCase, desktop: DesktopSession, plugins: String, extra: [String: String] = [:]) throws {
        self.desktop = desktop
        directory = try TemporaryDirectory(testCase)
        config = try directory.write("plugins.json", plugins)
        for folder in ["run", "data", "cache", "config"] {
            try FileManager.default.createDirectory(
                atPath: directory.file(folder), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        var environment = desktop.environment
        environment["XDG_RUNTIME_DIR"] = directory.file("run")
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        environment["XDG_CONFIG_HOME"] = directory.file("config")
        environment["GSK_RENDERER"] = "cairo"  // no GL under Xvfb
        environment["GDK_BACKEND"] = "x11"
        environment["GTK_A11Y"] = "atspi"
        environment["NO_AT_BRIDGE"] = nil
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = nil
        environment["LANGUAGE"] = nil
        environment["PULSE_SERVER"] = "unix:/nonexistent"  // the player plays into no device, as on a server
        environment.merge(extra) { _, chosen in chosen }
        self.environment = environment
        testCase.addTeardownBlock { [self] in stop() }
    }

    /// Starts `oton window ARGUMENTS --config …` (its output in window.log).
    @discardableResult
    func open(_ arguments: [String], log: String = "window.log") throws -> ManagedProcess {
        FileManager.default.createFile(atPath: directory.file(log), contents: nil)
        let process = ManagedProcess(
            name: "oton window", executable: TestPaths.oton, arguments: ["window"] + arguments + ["--config", config],
            environment: environment, stdout: FileHandle(forWritingAtPath: directory.file(log)),
            stderr: FileHandle(forWritingAtPath: directory.file(log)))
        try process.start()
        if window == nil { window = process }
        return process
    }

    var log: String { directory.read("window.log") }

    /// One driver command's JSON answer (nil when it failed: no such node yet, the app not on the bus yet),
    /// the command ended after `seconds`.
    func drive(_ words: [String], seconds: Int = 60) -> [String: JSONValue]? {
        driveAnswer(words, seconds: seconds).answer
    }

    /// One driver command's JSON answer, and what it printed when it failed (its error line).
    func driveAnswer(_ words: [String], seconds: Int = 60) -> (answer: [String: JSONValue]?, failure: String) {
        let arguments = ["--kill-after=5", "\(seconds)", "/usr/bin/python3", Self.script] + words
        guard let result = try? runProcess("/usr/bin/timeout", arguments, environment: environment) else { return (nil, "the driver did not start") }
        guard result.status == 0 else { return (nil, "exit \(result.status): \(result.stdout) \(result.stderr)") }
        return ((try? JSONValue.parse(Data(result.stdout.utf8)))?.objectValue, "")
    }

    /// The window's resident memory (VmRSS of /proc/PID/status) in KiB; nil once it is gone.
    var windowResidentKilobytes: Int? {
        guard let pid = window?.pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The text of the label described as `description` ("Title", "State", "Error"); nil when not found.
    func text(_ description: String) -> String? {
        drive(["text", description])?["text"]?.stringValue
    }

    /// Polls until `condition` holds for the label's text; the text seen last, for the failure message.
    func waitForText(_ description: String, timeout: TimeInterval = 60, _ condition: (String) -> Bool) -> (matched: Bool, last: String?) {
        let deadline = Date().addingTimeInterval(timeout)
        var last: String?
        repeat {
            last = text(description) ?? last
            if let last, condition(last) { return (true, last) }
            usleep(100_000)
        } while Date() < deadline
        return (false, last)
    }

    /// The names of every button the window shows.
    func buttonNames() -> [String] {
        (drive(["names", "push button"])?["names"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    func waitForButton(_ name: String, timeout: TimeInterval = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if buttonNames().contains(name) { return true }
            usleep(200_000)
        } while Date() < deadline
        return false
    }

    /// The AT-SPI states of the node named `name` (of `role`), "checked", "focused", "showing" …; nil when there is none.
    func states(_ name: String, role: String? = nil) -> [String]? {
        drive(["states", name] + (role.map { [$0] } ?? []))?["states"]?.arrayValue?.compactMap(\.stringValue)
    }

    /// Whether a control named `name` is there: GTK leaves a hidden widget (and a page not built yet) out of the AT-SPI tree.
    func isShowing(_ name: String, role: String? = nil) -> Bool {
        states(name, role: role) != nil
    }

    /// The text in the entry named `name`.
    func entryText(_ name: String) -> String? {
        drive(["entry-text", name])?["text"]?.stringValue
    }

    func press(_ name: String) -> Bool {
        drive(["press", name])?["done"]?.boolValue == true
    }

    func tree() -> String {
        (drive(["dump"])?["tree"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: "\n")
    }

    /// `oton ctl --instance INSTANCE status` data.
    func status(instance: String) -> [String: JSONValue]? {
        guard let result = try? runProcess(TestPaths.oton, ["ctl", "--instance", instance, "--json", "status"], environment: environment),
            result.status == 0
        else { return nil }
        return (try? JSONValue.parse(Data(result.stdout.utf8)))?["data"]?.objectValue
    }

    /// A screenshot of the screen's top-left `width`×`height` (where the window is: no window manager
    /// moves it), kept in ``outputFolder``; returns its path.
    func screenshot(_ name: String, width: Int, height: Int) throws -> String {
        try FileManager.default.createDirectory(atPath: Self.outputFolder, withIntermediateDirectories: true)
        let whole = directory.file("screen.png")
        try desktop.screenshot(to: whole)
        let path = Self.outputFolder + "/" + name
        let crop = try runProcess("/usr/bin/convert", [whole, "-crop", "\(width)x\(height)+0+0", "+repage", path])
        XCTAssertEqual(crop.status, 0, crop.stderr)
        return path
    }

    /// The number of distinct colours in a picture (a blank one has one or two).
    static func colourCount(_ path: String) throws -> Int {
        let result = try runProcess("/usr/bin/identify", ["-format", "%k", path])
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The picture's mean brightness, 0 (black) to 1 (white): a dark style is well below the middle, a light one above.
    static func brightness(_ path: String) throws -> Double {
        let result = try runProcess("/usr/bin/convert", [path, "-colorspace", "Gray", "-format", "%[fx:mean]", "info:"])
        return Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The names of every label the window shows (a list row's text is its label's name).
    func labelNames() -> [String] {
        (drive(["names", "label"])?["names"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// The text on the display's clipboard (nil when nothing answers).
    func clipboard() -> String? {
        drive(["clipboard"])?["text"]?.stringValue
    }

    static func size(_ path: String) throws -> String {
        try runProcess("/usr/bin/identify", ["-format", "%wx%h", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ends the window and everything it started (the player), then checks nothing is left.
    func stop() {
        for process in [window].compactMap({ $0 }) {
            let below = process.pid > 0 ? DesktopSession.descendants(of: process.pid) : []
            process.stop(grace: 10)
            for pid in below { kill(pid, SIGKILL) }
        }
    }
}
