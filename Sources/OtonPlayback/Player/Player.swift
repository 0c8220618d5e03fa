import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonMedia
import OtonStations
import OtonSupport
import Synchronization

/// The only owner of playback state. Requests (plugins, the control socket, the terminal), engine
/// reports and timers all arrive on one serial queue; the state machine decides, the player
/// carries out its effects and publishes state, track and volume events on the bus.
///
/// Its seams: the engines come from a ``StreamEngineFactory`` and time from a ``PlayerClock``, so
/// its logic is tested with a fake engine and virtual time (docs/architecture.md).
public final class Player: PlayerRequestSink, @unchecked Sendable {
    /// The station playing (or trying to); changed only on the queue, by a switch.
    var current: Station
    /// After the listener switched stations, giving up on one leaves the player on its error (the previous
    /// station one switch away) instead of ending the process.
    var hasSwitched = false
    /// The stations to switch between (owned by the session; a Player made alone has its own).
    public let stations: StationCatalogue
    /// The next connection is to a station just switched to.
    var freshStation = false
    let bus: PluginBus
    let options: Options
    let logger: Logger
    let engines: any StreamEngineFactory
    let clock: any PlayerClock
    /// Serial, on Dispatch's width-limited global pool: a plain serial queue is "overcommit" on
    /// Linux and gets a thread of its own when it wakes while others run, so a recorder of 100
    /// stations grew to 100 threads. Nothing on it blocks (resolving and status polls run elsewhere).
    let queue = DispatchQueue(label: "oton.player", target: .global(qos: .userInitiated))
    var machine: PlaybackStateMachine
    var pipeline: (any StreamEngine)? {
        willSet {
            // A connection let go of: its bytes stay counted (``Snapshot/receivedBytes``).
            if let old = pipeline, newValue.map(ObjectIdentifier.init) != ObjectIdentifier(old) {
                rememberLoudness(of: old)
                earlierConnectionsBytes += old.flow.sourceBytes
                if old.flow.lastSourceBytesAt > 0 { lastByteAtBefore = old.flow.lastSourceBytesAt }
            }
        }
    }
    /// Bytes received by connections already closed, and when the last of them received any.
    var earlierConnectionsBytes: UInt64 = 0
    var lastByteAtBefore: Int64?
    /// The light engine could not frame this station's stream: its connections use GStreamer (said once).
    var lightUnsupported = false
    /// The engine found no audio at this station's extension-less URL: it is resolved (probed) from now on.
    var probeUnprobed = false
    var connection: UInt64 = 0
    /// The stream the current connection was made to (a fallback to GStreamer makes it again).
    var lastResolved: ResolvedStream?
    /// The loudness the last connection measured, and of which stream (see ``rememberLoudness(of:)``).
    var heardLoudness: (url: String, lufs: Double)?
    let track: TrackAnnouncer
    /// The current station's status API (plugins.json's status_url), or the now-playing provider found
    /// for a titleless stream (a new follower per station).
    var statusFollower: (any StationTitleFollowing)?
    /// Plugins' title suggestions (song recognition) for a station whose stream names no song.
    var suggestions: TitleSuggestionListener?
    /// The output volume and its fades (on the queue); each change reaches the pipeline and the bus.
    lazy var fader = VolumeFader(volume: options.volume, queue: queue, clock: clock) { [weak self] value in
        self?.pipeline?.setVolume(value)
        self?.bus.publish(.volume(value))
    }
    lazy var ring = AlarmRing(clock: clock, queue: queue, logger: logger)
    lazy var watchdog = StallWatchdog(clock: clock, queue: queue)
    var retryTimer: (any PlayerTimer)?
    var retryDelay: Duration?
    var bufferingTimer: (any PlayerTimer)?
    /// Said once per process: autoaudiosink fell back to a silent fake sink.
    var warnedSilentOutput = false
    var lastSinkWarning: String?
    /// The last failure said (see ``sayFailure(_:)``); forgotten when a connection plays.
    var failureSaid: String?
    var pipelineStartedAt: Duration = .zero
    var finished = false
    /// Playlist → stream URL before every connect; `liveResolution` counts the starts, and only the
    /// latest one's resolution (and diagnosis of an empty connection) counts.
    lazy var resolver = StreamResolver(logger: logger)
    let liveResolution = Mutex<UInt64>(0)
    let onFinish: @Sendable (Outcome) -> Void
    /// Levelling on or off now (`ctl level`); starts as the options say.
    var levellingEnabled: Bool
    /// The current station's timeshift ring (nil: timeshift off, or not for this stream); a new one per station.
    var timeshiftRing: TimeshiftRing?
    /// The listener paused a timeshift connection: it is held (receiving), not stopped.
    var holdingTimeshift = false
    /// Its folder could not be made (said once): this player plays without timeshift.
    var timeshiftUnavailable = false
    /// The effect chain as it is now (`ctl effect` changes it); starts as the options say.
    var effects: [EffectSettings]
    /// Plugins' in-place filters (ABI 1.6), after the effects; given once the plugins run (``useFilters(_:)``).
    var filters: [AudioFilter] = []

    public convenience init(
        station: Station, bus: PluginBus, options: Options, stations: StationCatalogue? = nil,
        logger: Logger = Logger(label: "oton.player"), onFinish: @escaping @Sendable (Outcome) -> Void
    ) {
        self.init(
            station: station, bus: bus, options: options, stations: stations, logger: logger,
            engines: SystemStreamEngines(), clock: SystemPlayerClock(), onFinish: onFinish)
    }

    /// A player whose engines and clock are given (tests: a fake engine and virtual time).
    package init(
        station: Station, bus: PluginBus, options: Options, stations: StationCatalogue? = nil, logger: Logger,
        engines: any StreamEngineFactory, clock: any PlayerClock, onFinish: @escaping @Sendable (Outcome) -> Void
    ) {
        current = station
        self.stations = stations ?? StationCatalogue(config: nil, started: station)
        self.bus = bus
        self.options = options
        self.logger = logger
        self.engines = engines
        self.clock = clock
        self.onFinish = onFinish
        machine = PlaybackStateMachine(policy: options.reconnect)
        levellingEnabled = options.levelling?.enabled ?? false
        effects = options.effects
        track = TrackAnnouncer(station: station, bus: bus)
        statusFollower = makeStatusFollower(for: station)
        suggestions = TitleSuggestionListener(bus: bus) { [weak self] suggestion in
            self?.queue.async { [weak self] in
                guard let self, !finished else { return }
                track.suggest(suggestion, station: current, stationCount: stationList.stations.count)
            }
        }
    }

    /// Starts playing and announces the first state.
    public func start() {
        queue.async { [self] in
            publishState()
            if let wakeUp = options.wakeUp { prepare(wakeUp, volume: options.volume) }
            bus.publish(.volume(fader.volume))
            handle(.play)
        }
    }

    public func submit(_ request: PlayerRequest, from source: String) {
        queue.async { [self] in
            logger.debug("request \(request) from \(source)")
            switch request {
            case .play: handle(.play)
            case .pause:
                fader.finish()
                handle(.pause)
            case .playPause: handle(machine.state.isActive ? .pause : .play)
            case .stop:
                fader.finish()
                handle(.stop)
            case let .setVolume(value):
                fader.cancel()
                fader.set(value)
                options.volumeMemory?.remember(fader.volume)
            case let .changeVolume(change):
                fader.cancel()
                fader.set(Double(VolumeArgument.relative(change).applied(to: VolumeArgument.percent(of: fader.volume))) / 100)
                options.volumeMemory?.remember(fader.volume)
            case let .fadeVolume(target, milliseconds):
                fader.fade(to: target, over: milliseconds)
            case let .switchStation(next):
                switchTo(next)
            case let .switchStationNamed(argument):
                do {
                    switchTo(try stationList.find(argument))
                } catch {
                    logger.warning("\(tr("{source} asked to switch stations: {reason}", ["source": source, "reason": "\(error)"]))")
                }
            case let .stepStation(step):
                if let next = stationList.station(after: current, step: step) { switchTo(next) }
            case let .wakeUp(wakeUp, target):
                wake(wakeUp, volume: target)
            case let .setLevelling(enabled):
                levellingEnabled = enabled
                pipeline?.setLevelling(enabled: enabled)
            case let .seek(milliseconds):
                _ = seekNow(.by(Int64(milliseconds) * 1_000_000))
            case let .seekBehindLive(milliseconds):
                _ = seekNow(.behindLive(Int64(max(0, milliseconds)) * 1_000_000))
            case let .setEffect(changed):
                guard let index = effects.firstIndex(where: { $0.name == changed.name }) else { break }
                effects[index] = changed
                pipeline?.setEffects(effects)
            case .quit:
                finish(.quit)
            }
        }
    }

    /// The plugins' filters for the connections from now on (the session gives them once its plugins
    /// run, before ``start()``). Their instances must outlive the player's pipelines: the session
    /// shuts the player down before it destroys the plugins.
    public func useFilters(_ filters: [AudioFilter]) {
        queue.sync { self.filters = filters }
    }

    /// Stops the pipeline and waits until it is down (Ctrl-C, SIGTERM, tests).
    public func shutdown() {
        queue.sync {
            finished = true
            fader.cancel()
            ring.cancelToneDeadline()
            retryTimer?.cancel()
            bufferingTimer?.cancel()
            watchdog.cancel()
            statusFollower?.stop()
            suggestions?.close()
            liveResolution.withLock { $0 += 1 }
            pipeline?.stop()
            pipeline = nil
            dropTimeshiftRing()
        }
    }

    /// Waits until everything queued before it has run (tests of the player's logic).
    package func settle() {
        queue.sync {}
    }

    // MARK: switching stations

    /// A new connection for everyone: the state machine stops (the current track ends, plugins see
    /// `stopped` and `idle` as on any stop) and plays again, now resolving and connecting to `next`.
    func switchTo(_ next: Station) {
        guard !finished else { return }
        logger.info("switching from \(current.name) to \(next.name) (\(next.url))")
        stations.noteSwitch(to: next, from: current)
        hasSwitched = true
        fader.cancel()
        retryTimer?.cancel()
        retryTimer = nil
        statusFollower?.stop()
        handle(.stop)
        dropTimeshiftRing()  // a station switch starts a new ring
        current = next
        statusFollower = makeStatusFollower(for: next)
        lightUnsupported = false
        probeUnprobed = false
        track.switched(to: next, stationCount: stationList.stations.count)
        freshStation = true  // the next connection keeps nothing of the old station's (its icy-name)
        handle(.play)
    }

    // MARK: the state machine

    func handle(_ event: PlaybackEvent) {
        guard !finished else { return }
        let before = machine.state
        guard let transition = machine.handle(event) else {
            logger.debug("ignored \(event) in \(before)")
            return
        }
        // A timeshift connection paused by the listener is held, receiving, and resumed where it was.
        let holds = event == .pause && pipeline is TimeshiftEngine
        for effect in transition.effects {
            if holds, effect == .stopPipeline { holdTimeshift(); continue }
            // A pause fades out (a few ms) instead of cutting the sound: no click.
            if event == .pause, effect == .stopPipeline, let pipeline {
                bufferingTimer?.cancel()
                watchdog.cancel()
                self.pipeline = nil
                pipeline.fadeOutThenStop()
                continue
            }
            if effect == .startPipeline, resumeHeldTimeshift() { continue }
            perform(effect)
        }
        if holdingTimeshift, machine.state != .paused { endHeldTimeshift() }
        if event == .stop { timeshiftRing?.resumeOffset = nil }  // play after stop is live
        if event == .stop && machine.state == .idle && before != .idle {
            bus.publish(.state(StateInfo(.stopped)))  // stopped on request; idle follows
        }
        if machine.state != before && !PlaybackStateEvent.isMinorBufferingStep(from: before, to: machine.state) { publishState() }
        if case .playing = machine.state { ring.audioPlays(fader: fader) }
    }

    func perform(_ effect: PlaybackEffect) {
        switch effect {
        case .startPipeline:
            resolveThenStartPipeline()
        case .stopPipeline:
            bufferingTimer?.cancel()
            watchdog.cancel()
            if pipeline?.stop() == false {
                logger.warning("\(current.url): \(tr("the old connection did not stop within 2 s (a source blocked in a read); left behind"))")
            }
            pipeline = nil
        case .pausePipeline:
            pipeline?.setPlaying(false)
            bufferingTimer?.cancel()
            bufferingTimer = clock.schedule(after: options.bufferingTimeout, on: queue) { [weak self] in self?.handle(.failed(.bufferingTimeout)) }
        case .resumePipeline:
            bufferingTimer?.cancel()
            bufferingTimer = nil
            pipeline?.setPlaying(true)
        case let .scheduleRetry(delay):
            retryTimer?.cancel()
            retryDelay = delay
            logger.info("reconnecting to \(current.url) in \(delay)")
            retryTimer = clock.schedule(after: delay, on: queue) { [weak self] in self?.handle(.retryTimerFired) }
        case .cancelRetry:
            retryTimer?.cancel()
            retryTimer = nil
        case .giveUp:
            guard case let .error(kind) = machine.state else { return }
            if ring.alarmStation != nil, !ring.playingTone {
                // After this transition is done and its error state announced: the switch is a transition of its own.
                queue.async { [self] in playTone(because: kind.message(in: .current)) }
            } else if hasSwitched {
                logger.warning(
                    "\(current.url): \(tr("gave up ({reason}); staying on the error: switch to another station or play to try again", ["reason": kind.message(in: .current)]))"
                )
            } else {
                finish(.gaveUp(kind, reconnects: max(0, machine.consecutiveFailures - 1)))
            }
        }
    }

    func makeStatusFollower(for station: Station) -> (any StationTitleFollowing)? {
        let use: (StationStatus, TitleSource) -> Void = { [weak self] status, source in
            guard let self else { return }
            _ = track.apply(TagSet(status: status, source: source), readAt: nil, station: current, stationCount: stationList.stations.count)
        }
        if let follower = StationStatusFollower(station: station, queue: queue, logger: logger, use: use) { return follower }
        return ProviderTitleFollower(station: station, queue: queue, logger: logger, use: use)
    }

    func publishState() {
        bus.publish(
            PlaybackStateEvent.event(
                machine.state, failures: machine.consecutiveFailures, retryDelay: retryDelay,
                maxAttempts: machine.policy.maxAttempts))
    }

    func finish(_ outcome: Outcome) {
        guard !finished else { return }
        finished = true
        onFinish(outcome)
    }
}
