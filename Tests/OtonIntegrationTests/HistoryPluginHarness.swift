import Foundation
import Logging
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The real libOtonHistory.so created through the ABI by a PluginManager, fed
/// with track and state events whose timestamps the test chooses (so minutes
/// of listening take no time). Keeps what the plugin logs.
final class HistoryPluginHarness {
    let directory: TemporaryDirectory
    let bus = PluginBus()
    let log = LogLines()
    private(set) var manager: PluginManager!
    let configJSON: String
    /// A monotonic and a wall clock that only the test advances.
    private(set) var mono: Int64 = 1_000_000_000_000
    private(set) var wall: Int64 = 1_700_000_000_000_000

    var dataHome: String { directory.file("data") }
    var databasePath: String { dataHome + "/oton/plugins/org.oton.history/history.sqlite" }

    init(_ testCase: XCTestCase, config: String, directory: TemporaryDirectory? = nil) throws {
        self.directory = try directory ?? TemporaryDirectory(testCase)
        configJSON = config
        try start()
    }

    func start() throws {
        manager = PluginManager(
            bus: bus, requests: RecordingRequests(),
            directories: .init(dataHome: dataHome + "/oton", cacheHome: directory.file("cache")), logger: log.logger)
        let config = try JSONValue.parse(Data(configJSON.utf8))
        let reports = manager.start([PluginEntry(id: "org.oton.history", path: TestPaths.pluginLibrary("OtonHistory"), config: config)])
        guard case .running = reports.first?.status else {
            throw NSError(domain: "harness", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(reports)"])
        }
    }

    func shutdown() { manager.shutdown() }

    func advance(seconds: Double) {
        mono += Int64(seconds * 1e9)
        wall += Int64(seconds * 1e6)
    }

    func state(_ code: PlaybackStateCode) {
        bus.publish(
            BusEvent(
                kind: OTON_EVENT_STATE, name: "state", payload: .state(StateInfo(code)),
                monotonicNanoseconds: mono, wallMicroseconds: wall))
    }

    func track(
        _ sequence: UInt64, artist: String?, title: String?, station: String = "Test FM", stream: String = "http://127.0.0.1:1/live.mp3",
        titleSource: TitleSource? = .stream
    ) {
        let raw = [artist, title].compactMap { $0 }.joined(separator: " - ")
        let info = TrackInfo(
            title: title, artist: artist, rawTitle: raw, station: station, streamURL: URL(string: stream), titleSource: titleSource)
        bus.publish(
            BusEvent(
                kind: OTON_EVENT_TRACK, name: "track", payload: .track(info, sequence: sequence),
                monotonicNanoseconds: mono, wallMicroseconds: wall))
    }

    func publishArtwork(path: String) {
        let kind = bus.registry.kind(for: OTON_EVENT_NAME_ARTWORK_READY)!
        bus.publish(
            BusEvent(
                kind: kind, name: OTON_EVENT_NAME_ARTWORK_READY, source: "org.oton.artwork",
                extraFields: [("path", path), ("type", "cover")], monotonicNanoseconds: mono, wallMicroseconds: wall))
    }

    func drain() { manager.drain() }

    func command(_ name: String, _ arguments: [String]) -> CommandReply? {
        manager.run(command: name, arguments: arguments)
    }

    /// Rows of a query on the real database, through the sqlite3 program.
    func sql(_ query: String) throws -> [String] {
        let result = try runProcess("/usr/bin/sqlite3", ["-cmd", ".timeout 5000", databasePath, query])
        guard result.status == 0 else { throw NSError(domain: "sqlite3", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}

/// A swift-log handler that keeps every line.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var logger: Logger {
        Logger(label: "test.plugins") { _ in Handler(owner: self) }
    }

    var all: [String] { lock.withLock { lines } }

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    struct Handler: LogHandler {
        let owner: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            owner.append("\(event.level): \(event.message)")
        }
    }
}
