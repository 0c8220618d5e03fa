import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// Issue 39: an `oton play` hung in gst_init for 23 minutes. GStreamer's registry update starts its
/// scanner with g_spawn_async_with_pipes, whose pipes have no close-on-exec; the isolated plugin's
/// process, spawned from another thread at that moment, inherited their write ends and held them,
/// so GStreamer's read waiting for the scanner's exec never ended. A process oton spawns now holds
/// only the descriptors it is given (stdin, stdout, stderr and its socket), whatever thread opened
/// the others.
final class SpawnedDescriptorsTests: XCTestCase {
    private func isolated(_ plugins: [(id: String, path: String)], config: String = "{}") -> String {
        let entries = plugins.map { #"{"id": "\#($0.id)", "path": "\#($0.path)", "isolation": "process", "config": \#(config)}"# }
        return """
            {"stations": [{"name": "Nowhere", "url": "http://127.0.0.1:9/none.mp3"}], "plugins": [\(entries.joined(separator: ", "))]}
            """
    }

    /// The descriptors `pid` holds: number → what it points at.
    private static func descriptors(of pid: pid_t) -> [Int32: String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        var found: [Int32: String] = [:]
        for entry in entries {
            guard let fd = Int32(entry) else { continue }
            found[fd] = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)")) ?? "?"
        }
        return found
    }

    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap { pid_t($0) }
    }

    /// oton gets a descriptor without close-on-exec (fd 9, from the shell that starts it), as it gets
    /// GLib's pipes: neither the keeper of the isolated plugin nor its worker holds it.
    func testAnIsolatedPluginsProcessesHoldOnlyTheDescriptorsTheyAreGiven() throws {
        let directory = try TemporaryDirectory(self)
        let probe = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let pids = directory.file("pids"), marker = try directory.write("inherited", "")
        let config = try directory.write("plugins.json", isolated([("org.oton.test.probe", probe)], config: #"{"pid_file": "\#(pids)"}"#))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        let oton = ManagedProcess(
            name: "oton", executable: "/bin/sh",
            arguments: [
                "-c", #"exec 9<"$0" && exec "$@""#, marker, TestPaths.oton,
                "play", "Nowhere", "--headless", "--no-control", "--config", config,
            ],
            environment: environment)
        try oton.start()
        addTeardownBlock { oton.kill() }
        let deadline = Date().addingTimeInterval(60)
        while directory.lines("pids").isEmpty, oton.isRunning, Date() < deadline { usleep(20_000) }
        let worker = try XCTUnwrap(directory.lines("pids").first.flatMap { pid_t($0) }, "the plugin's create() ran in its worker")
        let keeper = try XCTUnwrap(Self.parent(of: worker))
        XCTAssertEqual(Self.parent(of: keeper), oton.pid, "the worker's parent is the keeper oton started")
        XCTAssertEqual(Self.descriptors(of: oton.pid)[9], marker, "oton itself holds fd 9")

        let kept = Self.descriptors(of: keeper)
        XCTAssertEqual(kept.keys.sorted(), [0, 1, 2], "the keeper holds stdin, stdout and stderr only: \(kept)")
        let working = Self.descriptors(of: worker)
        XCTAssertFalse(working.values.contains(marker), "the worker does not hold oton's fd 9: \(working)")
        XCTAssertTrue(working[3]?.hasPrefix("socket:") ?? false, "the worker holds its socket as fd 3: \(working)")
    }

    /// The race itself, many times: each start has a fresh registry (GStreamer scans every plugin
    /// again), a folder of libraries that kill the scanner loading them (so GStreamer spawns
    /// scanners one after another for seconds) and four isolated plugins, whose processes oton
    /// spawns one after another meanwhile. Before the fix, 5 of 6 such starts hung in gst_init.
    func testStartsWithAFreshRegistryAndIsolatedPluginsReachTheStream() throws {
        let directory = try TemporaryDirectory(self)
        let folder = directory.file("gst-plugins")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let killer = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/scanner_killing_library.c", into: directory, name: "scannerkiller")
        for copy in 0..<100 { try FileManager.default.copyItem(atPath: killer, toPath: "\(folder)/libscannerkiller\(copy).so") }
        let plugins = try (1...4).map { number in
            let id = "org.oton.test.probe\(number)"
            return (id, try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe\(number)", defines: [#"PROBE_ID="\#(id)""#]))
        }
        for start in 0..<5 {
            let run = try OtonRun(
                self, ["play", "Nowhere", "--headless", "--no-control"],
                environment: ["GST_REGISTRY": directory.file("registry-\(start).bin"), "GST_PLUGIN_PATH": folder],
                plugins: isolated(plugins))
            // Far more than a start takes on a loaded machine (2 to 4 s here); a hung one never gets there.
            let (connected, _) = run.wait(timeout: 90) { run.stdout.contains("state: connecting") }
            XCTAssertTrue(connected, "start \(start) reached the stream (past gst_init):\n\(run.stdout)\n\(run.stderr)")
            XCTAssertEqual(run.stderr.components(separatedBy: "started in its own process").count - 1, 4, run.stderr)
            let took = run.terminate(timeout: 30)
            XCTAssertNotNil(took, "start \(start): SIGTERM ended oton")
            print(
                "measured: start \(start) \(connected ? "reached the stream" : "hung"); SIGTERM ended it in \(took.map { String(format: "%.2f s", $0) } ?? "more than 30 s")"
            )
            guard connected else { break }  // one hang says it; the others would each wait the whole bound
        }
    }
}
