import Foundation
import Logging
import OtonHost
import OtonTestSupport
import PluginAPI

/// A Player on fake engines and virtual time: no network, no GStreamer, no wall clock. Every step
/// waits until the player's queue has done what it was given, so assertions read a settled player.
final class PlayerLogicHarness: @unchecked Sendable {
    static let stationA = Station(name: "Station A", url: "http://127.0.0.1:9/a.mp3")
    static let stationB = Station(name: "Station B", url: "http://127.0.0.1:9/b.mp3")

    let bus = PluginBus()
    let clock = VirtualPlayerClock()
    let engines = FakeStreamEngines()
    let events: EventCollector
    let player: Player
    private let outcomes = OutcomeBox()

    init(station: Station = stationA, options: Player.Options = Player.Options(headless: true)) {
        events = EventCollector(bus: bus)
        let stations = StationCatalogue(config: OtonConfig(stations: [Self.stationA, Self.stationB]), started: station)
        let outcomes = self.outcomes
        player = Player(
            station: station, bus: bus, options: options, stations: stations, logger: Logger(label: "test.player"),
            engines: engines, clock: clock
        ) { outcomes.set($0) }
    }

    deinit { player.shutdown() }

    func start() {
        player.start()
        settle()
    }

    /// The player's queue has run everything given to it, including what that work queued in turn.
    func settle() {
        for _ in 0..<4 { player.settle() }
    }

    func advance(_ duration: Duration) {
        clock.advance(by: duration)
        settle()
    }

    func submit(_ request: PlayerRequest) {
        player.submit(request, from: "test")
        settle()
    }

    /// The latest engine reports `event`.
    func report(_ event: PipelineEvent, from engine: FakeStreamEngine? = nil) {
        (engine ?? engines.last!).report(event)
        settle()
    }

    /// The latest engine connects and plays: bytes arrive, then audio.
    func play() {
        engines.last!.flows()
        report(.started)
    }

    /// The latest engine fails after some bytes (so no probe of an empty connection runs).
    func fail(_ kind: PlaybackErrorKind = .networkUnavailable) {
        engines.last!.flows(audio: false)
        report(.failure(kind, detail: "test failure"))
    }

    /// The latest state event, as published (synchronously) on the bus.
    var state: BusEvent? { bus.current(OTON_EVENT_STATE)?.event }
    var stateName: String? { state?.field(OTON_FIELD_STATE) }
    var volume: Double { player.snapshot.volume }
    var outcome: Player.Outcome? { outcomes.value }
}

private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var first: Player.Outcome?

    func set(_ outcome: Player.Outcome) { lock.withLock { first = first ?? outcome } }
    var value: Player.Outcome? { lock.withLock { first } }
}
