import Dispatch
import Foundation
import Logging
import OtonControl
import OtonEvents
import OtonPlayback
import OtonPlugins
import OtonStations
import OtonSupport

/// One run of the host: the bus, the plugins plugins.json enables, the
/// player for one station, `--events`, and Ctrl-C / SIGTERM handling.
/// `run()` blocks until playback is over and tears everything down in order.
/// The first SIGINT/SIGTERM asks for that orderly end; a second one exits at once
/// (status 128 + signal) with one line saying what the shutdown was waiting for.
public final class HostSession: @unchecked Sendable {
    public let bus: PluginBus
    public let plugins: PluginManager
    public let player: Player
    /// Snooze, and the sleep timer cancelled by an alarm's ring.
    public let alarm: AlarmClock
    private let wakesUp: Bool
    /// What `oton ctl station/next/prev` and the keys n, p, 1–9 switch between: plugins.json's stations as
    /// last (re)loaded (``StationCatalogue``), and the one oton started with.
    public var stations: StationList { player.stationList }
    private let config: OtonConfig
    private let logger: Logger
    private let eventsWriter: EventLineWriter?
    private let controlInstance: ControlInstance
    public private(set) var control: ControlServer?
    private let outcome: OutcomeBox
    private var signals: QuitSignals?

    /// Which control socket to open.
    public enum ControlInstance: Sendable {
        case disabled
        /// This name or fail (`--instance NAME`).
        case named(String)
        /// "default", or "<prefix>-<pid>" when another oton already is "default".
        case automatic(prefix: String)
    }

    public init(
        config: OtonConfig, station: Station, options: Player.Options, eventsPath: String?,
        control: ControlInstance = .disabled, logger: Logger = Logger(label: "oton")
    ) throws {
        self.config = config
        controlInstance = control
        self.logger = logger
        bus = PluginBus(logger: Logger(label: "oton.bus"))
        let bus = self.bus
        eventsWriter = try eventsPath.map { try EventLineWriter(destination: $0, bus: bus) }
        let outcome = OutcomeBox()
        self.outcome = outcome
        player = Player(station: station, bus: bus, options: options, stations: StationCatalogue(config: config, started: station)) {
            outcome.set($0)
        }
        plugins = PluginManager(bus: bus, requests: player, shutdownTimeout: config.shutdownTimeout)
        alarm = AlarmClock(player: player, plugins: plugins, options: options)
        wakesUp = options.wakeUp != nil
        // Plugins run control commands (ABI 1.3 run_command) through the commands `oton ctl` reaches.
        let player = self.player
        plugins.gateway.connect(ControlCommands(bus: bus, player: player, plugins: plugins, alarm: alarm).runner)
    }

    /// Loads the plugins, plays, waits for the end, then stops the player, destroys the
    /// plugins in order and flushes `--events`. Returns how playback ended.
    public func run(onStarted: (HostSession) -> Void = { _ in }) -> Player.Outcome {
        let configDirectory = config.file.map { ($0 as NSString).deletingLastPathComponent }
        plugins.start(config.plugins, configDirectory: configDirectory, crashRecord: .standard)
        player.useFilters(plugins.filters)
        openControlSocket()
        installSignalHandlers()
        // `oton play | head -2`: the reader went away; end as on Ctrl-C, quietly, exit 0.
        StandardOutput.onClosed { [weak self] in self?.requestQuit() }
        if wakesUp { alarm.cancelSleepTimer() }  // a ring starts with no sleep timer running
        player.start()
        onStarted(self)
        let result = outcome.wait()
        QuitSignals.endBegan()
        alarm.close()
        control?.close()
        player.shutdown()
        plugins.shutdown(finalState: StateInfo(.stopped))
        plugins.gateway.disconnect()
        eventsWriter?.finish()
        return result
    }

    /// Ends the session as Ctrl-C would.
    public func requestQuit() {
        player.submit(.quit, from: "host")
    }

    private func openControlSocket() {
        let names: [String]
        switch controlInstance {
        case .disabled: return
        case let .named(name): names = [name]
        case let .automatic(prefix): names = ["default", "\(prefix)-\(getpid())"]
        }
        for name in names {
            do {
                control = try ControlServer(instance: name, bus: bus, player: player, plugins: plugins, alarm: alarm)
                return
            } catch {
                logger.warning("\(tr("control socket {name}: {reason}", ["name": name, "reason": "\(error)"]))")
            }
        }
        logger.warning("\(tr("no control socket: `oton ctl` cannot reach this oton"))")
    }

    private func installSignalHandlers() {
        let plugins = self.plugins
        signals = QuitSignals(logger: logger, message: "stopping", requestQuit: { [weak self] in self?.requestQuit() }) {
            plugins.pluginHoldingShutdown.map { "plugin \($0) was still shutting down" } ?? "playback was still stopping"
        }
    }
}

/// The first outcome reported, and a way to wait for it.
/// Concurrency: `outcome` is read and written only under `condition`.
private final class OutcomeBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: Player.Outcome?

    func set(_ value: Player.Outcome) {
        condition.lock()
        if outcome == nil { outcome = value }
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Player.Outcome {
        condition.lock(); defer { condition.unlock() }
        while outcome == nil { condition.wait() }
        return outcome!
    }
}
