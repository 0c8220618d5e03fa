import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// A headless player on a real pipeline, with every bus event collected.
final class PlayerHarness: @unchecked Sendable {
    let bus = PluginBus()
    let events: EventCollector
    let player: Player
    private let recorder = OutcomeRecorder()

    init(
        url: String, name: String = "Test station", statusURL: String? = nil, headless: Bool = true, retries: Int? = nil,
        stallTimeout: Duration? = nil, userAgent: String? = nil, recording engine: EngineChoice? = nil,
        timeshift: TimeshiftSettings? = nil
    ) {
        events = EventCollector(bus: bus, id: "test.collector")
        var options = Player.Options(headless: headless)
        if let retries {
            if headless { options.reconnect.maxAttempts = retries } else { options.reconnect = .limited(retries) }
        }
        if let stallTimeout { options.stallTimeout = stallTimeout }
        options.timeshift = timeshift
        if let engine {
            // What a recorder asks: the encoded stream, not decoded, on this engine.
            options.decodes = false
            options.engine = engine
        }
        let recorder = self.recorder
        player = Player(station: Station(name: name, url: url, statusURL: statusURL, userAgent: userAgent), bus: bus, options: options) { outcome in
            recorder.record(outcome)
        }
    }

    var outcome: Player.Outcome? { recorder.outcome }

    func start() { player.start() }
    func stop() { player.shutdown() }

    /// The first track event with this title (and artist, when given).
    @discardableResult
    func waitForTrack(title: String, artist: String? = nil, timeout: TimeInterval = 10, after: Int64 = 0) -> BusEvent? {
        events.wait(for: "track", timeout: timeout) {
            $0.monotonicNanoseconds >= after && $0.field("title") == title && (artist == nil || $0.field("artist") == artist)
        }
    }

    @discardableResult
    func waitForState(_ state: String, timeout: TimeInterval = 15, after: Int64 = 0, where predicate: (BusEvent) -> Bool = { _ in true }) -> BusEvent? {
        events.wait(for: "state", timeout: timeout) { $0.monotonicNanoseconds >= after && $0.field("state") == state && predicate($0) }
    }

    var trackEvents: [BusEvent] { events.events.filter { $0.name == "track" } }
}

private final class OutcomeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var first: Player.Outcome?

    func record(_ outcome: Player.Outcome) {
        lock.lock(); first = first ?? outcome; lock.unlock()
    }

    var outcome: Player.Outcome? {
        lock.lock(); defer { lock.unlock() }
        return first
    }
}
