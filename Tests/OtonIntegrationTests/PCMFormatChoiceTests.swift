import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// ABI 1.3's select_pcm_format against a real `oton play` of a real Icecast mount: three C plugins
/// (Tests/Fixtures/pcm_format_plugin.c) get F32LE mono at 16 kHz (this one isolated in a process of
/// its own), F32LE as the stream is, and the default S16LE, each exactly as chosen and with the same
/// audio in it; hostile choices and a choice after create() get their status.
final class PCMFormatChoiceTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    /// The log's lines once `done` holds (the plugin writes from the oton process).
    private func waitForLines(_ path: String, timeout: TimeInterval = 20, until done: ([String]) -> Bool) -> [String] {
        OtonTestSupport.waitForLines(path, timeout: timeout, until: done)
    }

    private func peak(_ lines: [String]) -> Double? {
        lines.first { $0.hasPrefix("peak ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    func testEachPluginGetsThePCMItChoseWithTheSameAudio() async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let source = TestPaths.root + "/Tests/Fixtures/pcm_format_plugin.c"
        var entries: [String] = []
        let plugins: [(name: String, config: String)] = [
            ("mono16k", #""format": "f32", "rate": 16000, "channels": 1"#),
            ("float", #""format": "f32""#),
            ("default", ""),
        ]
        for plugin in plugins {
            let id = "org.oton.test.pcm-\(plugin.name)"
            let library = try CPluginBuilder.build(
                source, into: directory, name: "pcm-\(plugin.name)",
                defines: [#"PCM_ID="\#(id)""#], libraries: ["m"])
            let config = [#""log": "\#(directory.file(plugin.name + ".log"))""#, plugin.config].filter { !$0.isEmpty }.joined(separator: ", ")
            // The first runs isolated: its choice and its PCM cross the socket to its own process.
            let isolation = plugin.name == "mono16k" ? #", "isolation": "process""# : ""
            entries.append(#"{"id": "\#(id)", "path": "\#(library)"\#(isolation), "config": {\#(config)}}"#)
        }
        let config = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [\(entries.joined(separator: ", "))]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: config)
        _ = try oton.connect()

        var logs: [String: [String]] = [:]
        for plugin in plugins {
            logs[plugin.name] = waitForLines(directory.file(plugin.name + ".log"), timeout: 60) { lines in
                lines.contains { $0.hasPrefix("whole ") } && lines.contains { $0.hasPrefix("late ") } && lines.contains { $0.hasPrefix("peak ") }
            }
        }
        for plugin in plugins {
            let lines = logs[plugin.name] ?? []
            for hostile in ["null -1", "short -1", "rate-low -1", "rate-high -1", "channels -1", "sample -1"] {
                XCTAssertTrue(lines.contains(hostile), "\(plugin.name): \(hostile) in \(lines)")
            }
            XCTAssertTrue(lines.contains("late -3"), "a choice after create() is refused: \(lines)")
            XCTAssertTrue(lines.contains("whole 1"), "\(plugin.name) gets whole frames: \(lines)")
            if !plugin.config.isEmpty { XCTAssertTrue(lines.contains("chosen 0"), "\(plugin.name): \(lines)") }
        }
        // OTON_SAMPLE_S16LE is 1, OTON_SAMPLE_F32LE 2; the Icecast source is 44.1 kHz stereo.
        XCTAssertTrue(logs["mono16k"]!.contains("media 2 16000 1"), "\(logs["mono16k"]!)")
        XCTAssertTrue(logs["float"]!.contains("media 2 44100 2"), "\(logs["float"]!)")
        XCTAssertTrue(logs["default"]!.contains("media 1 44100 2"), "\(logs["default"]!)")
        // The same tone in every format: the peaks agree (F32 is full scale 1.0, S16 is divided by 32768).
        let peaks = plugins.compactMap { peak(logs[$0.name] ?? []) }
        guard peaks.count == 3 else { return XCTFail("every plugin measures a peak: \(logs)") }
        for value in peaks {
            XCTAssertGreaterThan(value, 0.05, "audio, not silence: \(peaks)")
            XCTAssertLessThanOrEqual(value, 1.0, "F32 samples within full scale: \(peaks)")
            XCTAssertEqual(value, peaks[2], accuracy: 0.06, "the same audio in every format: \(peaks)")
        }
        XCTAssertEqual(try oton.ctl(["status"]).status, 0)
    }
}
