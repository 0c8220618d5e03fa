import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// A real `oton` process with its own runtime, data and cache directories,
/// stopped when the test ends whatever happened.
final class OtonProcess {
    let process = Process()
    let environment: [String: String]
    let directory: TemporaryDirectory
    let instance: String

    /// `environment` is laid over the test's own (e.g. `LANG`; a nil value removes the variable).
    /// `files`: written beside plugins.json before oton starts (name → text), e.g. a wishlist.json.
    init(
        _ testCase: XCTestCase, arguments: [String], plugins: String = #"{"stations": [], "plugins": []}"#, instance: String = "test",
        environment extra: [String: String?] = [:], files: [String: String] = [:], wrapper: [String] = []
    ) throws {
        directory = try TemporaryDirectory(testCase)
        self.instance = instance
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.file("run")
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        environment["XDG_STATE_HOME"] = directory.file("state")  // the stations' measured loudness
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        for (name, value) in extra { environment[name] = value }
        self.environment = environment
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = try directory.write("plugins.json", plugins)
        for (name, text) in files { try directory.write(name, text) }
        // `wrapper`: a command that execs oton after it (unshare with a mount of its own …), oton's pid staying the process's.
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? TestPaths.oton)
        // Before a `--` (the end of options, as a unit's ExecStart= has it), so they stay options.
        var words = arguments
        words.insert(contentsOf: ["--config", config, "--instance", instance], at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
        process.arguments = wrapper.isEmpty ? words : Array(wrapper.dropFirst()) + [TestPaths.oton] + words
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: directory.file("stderr.log")) ?? FileHandle.nullDevice
        FileManager.default.createFile(atPath: directory.file("stderr.log"), contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory.file("stderr.log"))!
        try process.run()
        let running = process
        testCase.addTeardownBlock { if running.isRunning { running.terminate(); running.waitUntilExit() } }
    }

    var socketPath: String { directory.file("run") + "/oton/\(instance).sock" }

    /// Waits until the control socket accepts connections (nothing can be awaited across processes).
    func connect(timeout: TimeInterval = 15) throws -> ControlClient {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: socketPath), let client = try? withRuntimeDirectory({ try ControlClient(instance: instance) }) {
                client.setTimeout(seconds: 20)
                return client
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        throw NSError(domain: "oton", code: 1, userInfo: [NSLocalizedDescriptionKey: "no control socket; stderr: \(directory.read("stderr.log"))"])
    }

    /// Runs `body` with XDG_RUNTIME_DIR pointing at this oton's, then puts the variable back: it is
    /// the test process's, and a later test must not find it pointing into a deleted directory.
    private func withRuntimeDirectory<T>(_ body: () throws -> T) rethrows -> T {
        let before = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        setenv("XDG_RUNTIME_DIR", directory.file("run"), 1)
        defer { if let before { setenv("XDG_RUNTIME_DIR", before, 1) } else { unsetenv("XDG_RUNTIME_DIR") } }
        return try body()
    }

    /// `oton ctl --instance … WORDS`, as a user types it.
    func ctl(_ words: [String]) throws -> ProcessResult {
        try runProcess(TestPaths.oton, ["ctl", "--instance", instance] + words, environment: environment)
    }
}

/// One `{"event": {…}}` line of a control-socket subscription.
struct SubscribedEvent {
    var kind: String
    var fields: [String: String]
    var monotonicNanoseconds: Int64?

    init?(_ line: [String: JSONValue]) {
        guard let event = line["event"], let kind = event["kind"]?.stringValue else { return nil }
        self.kind = kind
        fields = (event["fields"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        monotonicNanoseconds = event["mono_ns"]?.int64Value
    }
}

/// Reads a subscription's events until one matches.
extension ControlClient {
    /// The next event; nil at the end, after the read timeout, or on a line that is not an event.
    func nextEvent() -> SubscribedEvent? {
        (try? nextObject()).flatMap(SubscribedEvent.init)
    }

    func waitForEvent(
        _ kind: String, timeout: TimeInterval = 15, where predicate: ([String: String]) -> Bool = { _ in true },
        seen: ((SubscribedEvent) -> Void)? = nil
    ) -> [String: String]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let event = nextEvent() else { return nil }
            seen?(event)
            if event.kind == kind && predicate(event.fields) { return event.fields }
        }
        return nil
    }
}
