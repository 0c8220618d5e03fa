import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `oton plugins validate`, run as a user runs it, on every bundled plugin and on C fixtures that
/// break the contract in one way each (Tests/Fixtures/misbehaving_plugin.c).
final class PluginValidateTests: XCTestCase {
    private func validate(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(TestPaths.oton, ["plugins", "validate"] + arguments)
    }

    private func validateInNetworkNamespace(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(
            "/usr/bin/unshare",
            [
                geteuid() == 0 ? "-n" : "-rn", "sh", "-c", #"ip link set lo up && exec "$0" "$@""#,
                TestPaths.oton, "plugins", "validate",
            ] + arguments)
    }

    private func fixture(_ knob: String?, in directory: TemporaryDirectory) throws -> String {
        try CPluginBuilder.build(
            TestPaths.root + "/Tests/Fixtures/misbehaving_plugin.c", into: directory,
            name: "misbehaving-\(knob ?? "none")", defines: knob.map { [$0] } ?? [], libraries: ["pthread"])
    }

    private func line(_ output: String, for title: String) -> String {
        output.split(separator: "\n").map(String.init).first { $0.dropFirst(6).hasPrefix(title) } ?? "(no line for \(title))"
    }

    // One test per bundled plugin, so the runner can run them side by side.
    func testSleepTimerPasses() throws { try assertBundledPluginPasses("OtonSleepTimer") }
    func testSharePasses() throws { try assertBundledPluginPasses("OtonShare") }
    func testArtworkPasses() throws { try assertBundledPluginPasses("OtonArtwork") }
    func testNowPlayingPasses() throws { try assertBundledPluginPasses("OtonNowPlaying") }
    func testHistoryPasses() throws { try assertBundledPluginPasses("OtonHistory") }
    func testFileSinkPasses() throws { try assertBundledPluginPasses("OtonFileSink") }
    func testWebRemotePasses() throws { try assertBundledPluginPasses("OtonWebRemote") }
    func testMetricsPasses() throws { try assertBundledPluginPasses("OtonMetrics") }
    func testSnapcastPasses() throws { try assertBundledPluginPasses("OtonSnapcast") }
    func testUPnPPasses() throws { try assertBundledPluginPasses("OtonUPnP") }
    func testMQTTPasses() throws { try assertBundledPluginPasses("OtonMQTT") }  // no broker: it keeps trying, bounded
    func testHookPasses() throws { try assertBundledPluginPasses("OtonHook") }
    func testTrayPasses() throws { try assertBundledPluginPasses("OtonTray") }
    func testRecognitionPasses() throws { try assertBundledPluginPasses("OtonRecognition") }

    private func assertBundledPluginPasses(_ product: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = try TemporaryDirectory(self)
        var arguments = [TestPaths.pluginLibrary(product), "--timeout", "10"]
        if product == "OtonFileSink" {  // it needs a folder to record into
            arguments += ["--plugin-config", #"{"directory":"\#(directory.path)"}"#]
        }
        if product == "OtonWebRemote" || product == "OtonMetrics" {  // a free loopback port, not the default another program may hold
            arguments += ["--plugin-config", #"{"listen":"127.0.0.1:0"}"#]
        }
        if product == "OtonHook" {  // its command is required: one that does nothing
            arguments += ["--plugin-config", #"{"command":["/bin/true"]}"#]
        }
        if product == "OtonRecognition" {  // its index in the test's folder
            arguments += ["--plugin-config", #"{"database":"\#(directory.file("recognition.sqlite"))"}"#]
        }
        if product == "OtonSnapcast" {  // its metadata listener on a free loopback port; no snapserver is needed
            arguments += ["--plugin-config", #"{"metadata_listen":"127.0.0.1:0"}"#]
        }
        // The UPnP plugin searches every interface by default: in a network namespace with only
        // loopback, so that a test sends no SSDP to the machine's networks.
        let result = product == "OtonUPnP" ? try validateInNetworkNamespace(arguments) : try validate(arguments)
        XCTAssertEqual(result.status, 0, "\(product):\n\(result.stdout)\(result.stderr)", file: file, line: line)
        let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("pass") || $0.hasPrefix("FAIL") || $0.hasPrefix("skip") }
        XCTAssertEqual(lines.count, ValidationCheck.allCases.count, "one line per check:\n\(result.stdout)", file: file, line: line)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("pass  ") }, "\(product):\n\(result.stdout)", file: file, line: line)
        // The checks run side by side; the report keeps their order.
        let titles = lines.map { String($0.dropFirst(6).prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(titles, ValidationCheck.allCases.map(\.title), result.stdout, file: file, line: line)
    }

    func testAWellBehavedFixturePassesEveryCheck() throws {
        let directory = try TemporaryDirectory(self)
        let result = try validate([try fixture(nil, in: directory)])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("pass  media at the declared taps, with DISCONT and format changes\n"), result.stdout)
        let leak = line(result.stdout, for: ValidationCheck.leak.title)
        XCTAssertTrue(leak.hasPrefix("pass  "), result.stdout)
        // Events, both taps and its command are each measured.
        for part in [" events", " stream buffers", " PCM buffers", " commands"] {
            XCTAssertTrue(leak.contains(part + ";") || leak.contains(part + ")"), "\(part): \(leak)")
        }
        XCTAssertTrue(result.stdout.hasSuffix("all checks passed\n"), result.stdout)
    }

    /// 4 KiB kept per event (the fixture never frees them): the leak check names the growth per event.
    func testALeakingPluginFailsTheLeakCheckWithItsGrowth() throws {
        let directory = try TemporaryDirectory(self)
        let result = try validate([try fixture("MISBEHAVE_LEAK", in: directory), "--timeout", "10"])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        let leak = line(result.stdout, for: ValidationCheck.leak.title)
        XCTAssertTrue(leak.hasPrefix("FAIL  ") && leak.contains("the heap grew by ") && leak.contains("at most 256 allowed"), result.stdout)
        let perEvent = leak.components(separatedBy: " bytes each").first?.split(separator: "(").last.flatMap { Int($0) } ?? 0
        XCTAssertGreaterThanOrEqual(perEvent, 3072, "about the 4 KiB it keeps per event: \(leak)")
        XCTAssertTrue(result.stdout.contains("1 check failed"), "only the leak check fails:\n\(result.stdout)")
    }

    /// struct_size beyond the declared minor's descriptor: a warning, not a failure.
    func testADescriptorLargerThanItsABIGetsAWarning() throws {
        let directory = try TemporaryDirectory(self)
        let result = try validate([try fixture("MISBEHAVE_LARGE_DESCRIPTOR", in: directory)])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let descriptor = line(result.stdout, for: "descriptor and the loader's checks")
        XCTAssertTrue(
            descriptor.hasPrefix("warn  ") && descriptor.contains("struct_size is 152 bytes, larger than the 136 of an ABI 1.6 descriptor"), result.stdout)
        XCTAssertTrue(result.stdout.contains("all checks passed"), result.stdout)
    }

    func testFixturesThatBreakTheContractFailWithTheRightReason() throws {
        let cases: [(knob: String, title: String, reason: String)] = [
            ("MISBEHAVE_BLOCK_IN_EVENT", "on_event storm of every kind it consumes", "on_event blocked for more than 1 s"),
            ("MISBEHAVE_CRASH_ON_DISCONT", "media at the declared taps", "crashed with SIGSEGV (signal 11) in on_media at the "),
            ("MISBEHAVE_CRASH_ON_HUGE", "create/destroy with huge config", "crashed with SIGSEGV (signal 11) in create() with 4 MiB"),
            (
                "MISBEHAVE_LATE_THREAD", "no thread of the plugin calls the host after destroy",
                "a thread of the plugin called the host after destroy() returned"
            ),
            ("MISBEHAVE_DUPLICATE_COMMAND", "descriptor and the loader's checks", "the command \"misbehave-stats\" is declared twice"),
            ("MISBEHAVE_BAD_COMMAND_NAME", "descriptor and the loader's checks", "commands[].name is invalid: \"Bad Name\""),
            ("MISBEHAVE_SILENT_FAILURE", "every declared command with bad arguments", "failed without a message"),
            ("MISBEHAVE_LEAK", ValidationCheck.leak.title, "on_event keeps memory it never frees"),
        ]
        try assertEachFails(cases)
    }

    /// What slipped through the validator before (issue 38 §4).
    func testSmallMediaCommandFileAndThreadLeaksAndACrashInOnEventAreNamed() throws {
        try assertEachFails([
            ("MISBEHAVE_SMALL_LEAK", ValidationCheck.leak.title, "events ("),
            ("MISBEHAVE_MEDIA_LEAK", ValidationCheck.leak.title, "on_media keeps memory it never frees"),
            ("MISBEHAVE_COMMAND_LEAK", ValidationCheck.leak.title, "on_command keeps memory it never frees"),
            ("MISBEHAVE_FD_LEAK", ValidationCheck.leak.title, "file descriptors opened since create() are still open after destroy()"),
            ("MISBEHAVE_THREAD_LEAK", ValidationCheck.leak.title, "threads started since create() still run after destroy()"),
            (
                "MISBEHAVE_CRASH_IN_EVENT", ValidationCheck.destroyPending.title,
                "crashed with SIGSEGV (signal 11) in on_event (the validator was at: destroy() with events queued)"
            ),
        ])
    }

    /// The filter check (issue 53 §1): the filter gets a test tone, a few hundred buffers at the
    /// host's formats; each way of breaking the real-time rules fails that check with its reason.
    func testFiltersThatBreakTheRealTimeRulesFailTheFilterCheckWithTheirReason() throws {
        let directory = try TemporaryDirectory(self)
        let fixtures = TestPaths.root + "/Tests/Fixtures/"
        func misbehaving(_ knob: String) throws -> String {
            try CPluginBuilder.build(fixtures + "misbehaving_filter_plugin.c", into: directory, name: "filter-\(knob.prefix { $0 != "=" })", defines: [knob])
        }
        let cases: [(name: String, library: String, reasons: [String])] = [
            (
                "slow", try CPluginBuilder.build(fixtures + "sleeping_filter_plugin.c", into: directory, name: "filter-slow", defines: ["SLEEP_MS=50"]),
                ["filter() takes ", "per buffer (the median of 20 calls), over its budget"]
            ),
            ("leaking", try misbehaving("FILTER_LEAK"), ["the heap grew by ", "over 550 filter() calls", "filter must not allocate"]),
            (
                "crashing", try misbehaving("FILTER_CRASH_AT=100"),
                ["crashed with SIGSEGV (signal 11) in filter() call 100 of 600 (44100 Hz, 1 channel, 1024 frames)"]
            ),
            (
                "past the end", try misbehaving("FILTER_PAST_THE_END"),
                [
                    "filter() wrote past the end of its buffer (into the PROT_NONE page right after it): crashed with SIGSEGV (signal 11) in filter() call 1 of 600"
                ]
            ),
            (
                "before the start", try misbehaving("FILTER_BEFORE_THE_START"),
                ["filter() call 1 (44100 Hz, 1 channel, 1024 frames) wrote before the start of its buffer"]
            ),
            (
                "hanging", try CPluginBuilder.build(fixtures + "sleeping_filter_plugin.c", into: directory, name: "filter-hanging", defines: ["SLEEP_MS=5000"]),
                ["filter() call 1 did not return within 2 s; on the audio thread this stops the sound"]
            ),
            (
                "broken samples", try CPluginBuilder.build(fixtures + "broken_samples_filter_plugin.c", into: directory, name: "filter-broken"),
                ["filter() call 1 (44100 Hz, 1 channel, 1024 frames) handed on NaN at sample 0"]
            ),
        ]
        for item in cases {
            let result = try validate([item.library])
            XCTAssertEqual(result.status, 1, "\(item.name):\n\(result.stdout)\(result.stderr)")
            let line = line(result.stdout, for: ValidationCheck.filter.title)
            XCTAssertTrue(line.hasPrefix("FAIL  "), "\(item.name): \(line)\n\(result.stdout)")
            for reason in item.reasons { XCTAssertTrue(line.contains(reason), "\(item.name): \(reason)\n\(line)") }
            XCTAssertTrue(result.stdout.contains("1 check failed"), "\(item.name): only the filter check fails:\n\(result.stdout)")
        }
    }

    /// The example filter keeps every rule: the filter check passes and says what it measured.
    func testTheExampleHalfGainFilterPassesTheFilterCheck() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/examples/c-half-gain/oton_half_gain.c", into: directory, name: "oton_half_gain")
        let result = try validate([library])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let line = line(result.stdout, for: ValidationCheck.filter.title)
        XCTAssertTrue(line.hasPrefix("pass  ") && line.contains("(600 calls, median "), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("all checks passed\n"), result.stdout)
    }

    private func assertEachFails(_ cases: [(knob: String, title: String, reason: String)]) throws {
        let directory = try TemporaryDirectory(self)
        for item in cases {
            let result = try validate([try fixture(item.knob, in: directory), "--timeout", "1"])
            XCTAssertEqual(result.status, 1, "\(item.knob):\n\(result.stdout)\(result.stderr)")
            let line = line(result.stdout, for: item.title)
            XCTAssertTrue(line.hasPrefix("FAIL  ") && line.contains(item.reason), "\(item.knob): \(line)\n\(result.stdout)")
        }
    }

    /// A check that cannot run is not a pass: the last line counts and names the skipped ones.
    func testSkippedChecksAreCountedAndNamedNotCalledAllPassed() throws {
        let result = try validate([TestPaths.pluginLibrary("OtonFileSink")])  // no folder: create() refuses
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertFalse(result.stdout.contains("all checks passed"), result.stdout)
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasPrefix("passed, 6 skipped (commands, event-storm, leak, media, destroy-pending, after-destroy)"), last)
    }

    func testUsageErrorsExitWithTwoAndSayWhatToDo() throws {
        let directory = try TemporaryDirectory(self)
        let library = try fixture(nil, in: directory)
        let missing = try validate([directory.file("libnothing.so")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("libnothing.so"), missing.stderr)
        let badConfig = try validate([library, "--plugin-config", "[1,2]"])
        XCTAssertEqual(badConfig.status, 2)
        XCTAssertTrue(badConfig.stderr.contains("--plugin-config is not a JSON object"), badConfig.stderr)
        let badTimeout = try validate([library, "--timeout", "0"])
        XCTAssertEqual(badTimeout.status, 2)
        XCTAssertTrue(badTimeout.stderr.contains("--timeout"), badTimeout.stderr)
    }
}
