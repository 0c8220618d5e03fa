import Dispatch
import Foundation
import Logging
import OtonControl
import OtonEvents
import OtonPlayback
import OtonStations
import OtonSupport

/// `oton record A B C …`: one process, one session per station (``RecordingSession``), sharing the
/// light engine's thread, the mailbox pool and the control socket. One station failing, stalling or
/// flooding never touches another's: each has its own player, reconnects, bus and plugin instances.
/// Stations can be added and removed while it runs (`oton ctl record add/remove`). `run` returns
/// when every session has ended (each by its own `--duration`, or all on SIGINT/SIGTERM or `quit`).
public final class MultiRecorder: @unchecked Sendable {  // `lock` guards every var; the lets are set once
    /// The plugins a station's session runs (the file sink with that station's folder, …).
    public typealias Plan = @Sendable (_ station: Station, _ label: String) -> [PluginEntry]
    public typealias Observe = @Sendable (RecordingSession) -> any RecordingObserver

    public struct Ended: Sendable {
        public let label: String
        public let station: Station
        public let outcome: Player.Outcome
        public let recordingFailure: String?
    }

    private let plan: Plan
    private let observe: Observe
    private let options: Player.Options
    private let configDirectory: String?
    private let shutdownTimeout: Double
    private let events: (handle: FileHandle?, lock: NSLock)?
    /// plugins.json's stations, for `record add NAME`.
    package let catalogue: OtonConfig
    private let logger = Logger(label: "oton.recorder")
    private let lock = NSCondition()
    private var active: [(session: RecordingSession, observer: any RecordingObserver)] = []
    private var ended: [Ended] = []
    private var stopping = 0
    private var labels = StationLabels()
    private var quitting = false
    /// systemd was told the recorder is stopping.
    private var toldStopping = false
    private var signals: QuitSignals?

    public init(
        catalogue: OtonConfig, options: Player.Options, events: (handle: FileHandle?, lock: NSLock)?, plan: @escaping Plan,
        observe: @escaping Observe
    ) {
        self.catalogue = catalogue
        self.options = options
        self.events = events
        self.plan = plan
        self.observe = observe
        configDirectory = catalogue.file.map { ($0 as NSString).deletingLastPathComponent }
        shutdownTimeout = catalogue.shutdownTimeout
    }

    /// Starts a session for `station`; nil once the recorder is quitting.
    @discardableResult
    public func add(_ station: Station) -> RecordingSession? {
        lock.lock()
        guard !quitting else { lock.unlock(); return nil }
        let label = labels.label(for: station.name)
        lock.unlock()
        let session = RecordingSession(
            station: station, label: label, plugins: plan(station, label), configDirectory: configDirectory,
            options: options, shutdownTimeout: shutdownTimeout, events: events
        ) { [weak self] session in
            self?.sessionFinished(session)
        }
        let observer = observe(session)
        lock.lock()
        active.append((session, observer))
        lock.unlock()
        session.start()
        logger.info("recording \(station.name) (\(station.url)) into \(label)/")
        return session
    }

    /// Ends the session named `argument` (its label, station name or URL); its files are finished.
    public func remove(_ argument: String) -> RecordingSession? {
        let session = lock.withLock { find(argument) }
        session?.requestQuit()
        return session
    }

    /// The sessions recording now, in the order they were added.
    public var sessions: [(session: RecordingSession, observer: any RecordingObserver)] {
        lock.withLock { active }
    }

    /// Ends every session (Ctrl-C, SIGTERM, `oton ctl quit`).
    public func requestQuit() {
        let all = lock.withLock { () -> [RecordingSession] in
            quitting = true
            lock.broadcast()  // run() tells systemd at once
            return active.map(\.session)
        }
        for session in all { session.requestQuit() }
    }

    /// Starts `stations`, opens the control socket, and waits until every session has ended.
    public func run(_ stations: [Station], control instance: HostSession.ControlInstance) -> [Ended] {
        installSignalHandlers()
        var control: ControlServer?
        let names: [String] =
            switch instance {
            case .disabled: []
            case let .named(name): [name]
            case let .automatic(prefix): ["default", "\(prefix)-\(getpid())"]
            }
        for name in names where control == nil {
            do {
                control = try ControlServer(instance: name, bus: PluginBus(), handler: RecorderCommands(recorder: self))
            } catch {
                logger.warning("\(tr("control socket {name}: {reason}", ["name": name, "reason": "\(error)"]))")
            }
        }
        for station in stations { add(station) }
        let watchdog = RecorderWatchdog { [weak self] in RecorderStatusLine.text(self?.sessions.map(\.session.player) ?? []) }
        watchdog.ready()
        lock.lock()
        while !active.isEmpty || stopping > 0 {
            if quitting && !toldStopping {
                toldStopping = true
                watchdog.stopping()
            }
            lock.wait()
        }
        quitting = true
        let result = ended
        lock.unlock()
        if !toldStopping { watchdog.stopping() }
        control?.close()
        return result
    }

    private func find(_ argument: String) -> RecordingSession? {
        let folded = argument.lowercased()
        return active.first { $0.session.label.lowercased() == folded }?.session
            ?? active.first { $0.session.station.name.lowercased() == folded }?.session
            ?? active.first { $0.session.station.url == argument }?.session
    }

    /// A session's player finished: its plugins are shut down off the player's queue, all such
    /// shutdowns at once (a SIGTERM to 100 stations finishes 100 files in parallel).
    private func sessionFinished(_ session: RecordingSession) {
        lock.lock()
        guard let index = active.firstIndex(where: { $0.session === session }) else { return lock.unlock() }
        let (_, observer) = active.remove(at: index)
        stopping += 1
        lock.unlock()
        DispatchQueue.global().async { [self] in
            session.shutdown()
            observer.close()
            lock.lock()
            labels.release(session.label)
            ended.append(
                Ended(
                    label: session.label, station: session.station, outcome: session.ended ?? .quit,
                    recordingFailure: observer.recordingFailure))
            stopping -= 1
            lock.broadcast()
            lock.unlock()
        }
    }

    private func installSignalHandlers() {
        signals = QuitSignals(logger: logger, message: "finishing every recording", requestQuit: { [weak self] in self?.requestQuit() }) {
            "recordings were still finishing"
        }
        StandardOutput.onClosed { [weak self] in self?.requestQuit() }
    }
}
