import Foundation
import Logging
import OtonEvents
import OtonPlayback
import OtonPlugins
import OtonStations
import Synchronization

/// One station of a recorder of several (``MultiRecorder``): what `oton play` is for one station,
/// without the terminal: its own bus, plugin instances (a plugin still sees exactly one station),
/// player with its reconnect policy, and optionally its `--events` writer.
public final class RecordingSession: Sendable {
    public let station: Station
    /// Unique among the recorder's stations: the folder its files go into and its name in `ctl status`.
    public let label: String
    public let bus: PluginBus
    public let plugins: PluginManager
    public let player: Player
    private let entries: [PluginEntry]
    private let configDirectory: String?
    private let events: EventLineWriter?
    private let outcome = OutcomeCell()
    public let startedAt = ContinuousClock.now

    public init(
        station: Station, label: String, plugins entries: [PluginEntry], configDirectory: String?, options: Player.Options,
        shutdownTimeout: Double, events shared: (handle: FileHandle?, lock: NSLock)?, playerLogger: Logger? = nil,
        onFinish: @escaping @Sendable (RecordingSession) -> Void
    ) {
        self.station = station
        self.label = label
        self.entries = entries
        self.configDirectory = configDirectory
        let bus = PluginBus(logger: Logger(label: "oton.bus"))
        self.bus = bus
        events = shared.map { EventLineWriter(shared: $0, bus: bus, station: label) }
        let outcome = self.outcome
        player = Player(station: station, bus: bus, options: options, logger: playerLogger ?? Logger(label: "oton.player[\(label)]")) { result in
            if let session = outcome.set(result) { onFinish(session) }
        }
        plugins = PluginManager(bus: bus, requests: player, shutdownTimeout: shutdownTimeout)
        let player = self.player, plugins = self.plugins
        plugins.gateway.connect(ControlCommands(bus: bus, player: player, plugins: plugins).runner)
        outcome.session.withLock { $0 = RecordingSessionReference(session: self) }
    }

    /// How the session ended; nil while it records.
    public var ended: Player.Outcome? { outcome.value.withLock { $0 } }

    /// Loads the plugins and starts recording.
    public func start() {
        plugins.start(entries, configDirectory: configDirectory, crashRecord: .standard)
        player.start()
    }

    /// Asks the session to end (as Ctrl-C would for one station).
    public func requestQuit() {
        player.submit(.quit, from: "recorder")
    }

    /// Stops the player, then destroys the plugins (each file sink finishes its file).
    public func shutdown() {
        player.shutdown()
        plugins.shutdown(finalState: StateInfo(.stopped))
        plugins.gateway.disconnect()
        events?.finish()
    }
}

/// How a session ended, and the session to tell (set once the session exists; weak, so no cycle).
private final class OutcomeCell: Sendable {
    let value = Mutex<Player.Outcome?>(nil)
    let session = Mutex<RecordingSessionReference?>(nil)

    /// Keeps the first outcome; returns the session to notify.
    func set(_ result: Player.Outcome) -> RecordingSession? {
        value.withLock { if $0 == nil { $0 = result } }
        return session.withLock { $0?.session }
    }
}

private struct RecordingSessionReference: @unchecked Sendable {  // immutable; the session is Sendable
    weak var session: RecordingSession?
}
