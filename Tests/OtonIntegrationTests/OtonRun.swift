import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// One real `oton` command (play or record) as a ``ManagedProcess`` with its output in files, its own
/// XDG folders in a temporary directory, and what the HLS/DASH shape tests measure: the resident
/// memory from /proc, how long SIGTERM takes, and which files it left where.
final class OtonRun {
    let directory: TemporaryDirectory
    let process: ManagedProcess
    /// For `record`: the output folder (inside `directory`).
    var out: String { directory.file("out") }

    /// `arguments`: "{out}" stands for ``out``. `environment` adds to (or replaces in) the test's own.
    /// `plugins`: the text of its plugins.json.
    init(
        _ testCase: XCTestCase, _ arguments: [String], environment extra: [String: String] = [:],
        plugins: String = #"{"stations": [], "plugins": []}"#
    ) throws {
        directory = try TemporaryDirectory(testCase)
        let config = try directory.write("plugins.json", plugins)
        FileManager.default.createFile(atPath: directory.file("stdout.log"), contents: nil)
        FileManager.default.createFile(atPath: directory.file("stderr.log"), contents: nil)
        try FileManager.default.createDirectory(
            atPath: directory.file("run"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let outPath = directory.file("out")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.file("run")
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        environment["XDG_STATE_HOME"] = directory.file("state")  // the stations' measured loudness
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        environment.merge(extra) { _, new in new }
        process = ManagedProcess(
            name: "oton", executable: TestPaths.oton, arguments: arguments.map { $0 == "{out}" ? outPath : $0 } + ["--config", config],
            environment: environment,
            stdout: FileHandle(forWritingAtPath: directory.file("stdout.log")),
            stderr: FileHandle(forWritingAtPath: directory.file("stderr.log")))
        try process.start()
        let process = self.process
        testCase.addTeardownBlock { process.kill() }
    }

    var stdout: String { directory.read("stdout.log") }
    var stderr: String { directory.read("stderr.log") }

    /// VmRSS from /proc/PID/status in MB (nil once the process is gone).
    var residentMegabytes: Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return kilobytes / 1024
    }

    /// Polls until `condition` holds (true) or the deadline passes or the process exits (false),
    /// sampling the resident memory on the way; returns the condition and the largest sample.
    func wait(timeout: TimeInterval, until condition: () -> Bool) -> (met: Bool, peakMegabytes: Double) {
        let deadline = Date().addingTimeInterval(timeout)
        var peak = residentMegabytes ?? 0
        while Date() < deadline {
            if condition() { return (true, peak) }
            guard process.isRunning else { return (condition(), peak) }
            peak = max(peak, residentMegabytes ?? 0)
            usleep(200_000)
        }
        return (condition(), peak)
    }

    /// SIGTERM, and the seconds until the process was gone (nil: still there after `timeout`).
    func terminate(timeout: TimeInterval = 10) -> TimeInterval? {
        let sent = Date()
        kill(process.pid, SIGTERM)
        guard process.waitForExit(timeout: timeout) else { return nil }
        return Date().timeIntervalSince(sent)
    }

    /// Files the run left in its directory outside the output folder, other than its own
    /// bookkeeping (config, logs, XDG folders): a recording must write only inside --out.
    func filesOutsideOutput() -> [String] {
        let own: Set<String> = ["plugins.json", "stdout.log", "stderr.log"]
        guard let names = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var stray: [String] = []
        while let name = names.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.file(name), isDirectory: &isDirectory), !isDirectory.boolValue,
                !own.contains(name), !name.hasPrefix("out/"), !name.hasPrefix("data/"), !name.hasPrefix("cache/"),
                !name.hasPrefix("run/")
            else { continue }
            stray.append(name)
        }
        return stray
    }

    /// Regular files under the output folder, relative to it.
    func outputFiles() -> [String] {
        guard let names = FileManager.default.enumerator(atPath: out) else { return [] }
        var files: [String] = []
        while let name = names.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: out + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(name) }
        }
        return files.sorted()
    }
}
