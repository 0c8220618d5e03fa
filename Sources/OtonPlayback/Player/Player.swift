import Dispatch
import Foundation
import Logging
import PluginAPI
import Synchronization
import OtonSupport
import OtonEvents
import OtonMedia
import OtonStations

/// The only owner of playback state. Requests (plugins, the control socket,
/// the terminal), pipeline reports and timers all arrive on one serial queue;
/// the state machine decides, the player carries out its effects and
/// publishes state, track and volume events on the bus.
public final class Player: PlayerRequestSink, @unchecked Sendable {
    public struct Options: Sendable {
        public var headless: Bool
        public var reconnect: ReconnectPolicy
        /// How long the pipeline may stay paused for buffering before it counts as a failure.
        public var bufferingTimeout: Duration
        public var volume: Double
        /// false: nobody listens (recording), so the stream is parsed and tagged but not decoded.
        public var decodes = true
        /// In `playing`, this long without a buffer reaching the output is a `stalled` failure
        /// (then a reconnect like any other): "playing" means audio flows.
        public var stallTimeout: Duration = .seconds(10)
        /// `--audio-sink`: a GStreamer sink element instead of autoaudiosink.
        public var audioSink: String?
        /// `--engine`: GStreamer, or the light engine where only the encoded stream is wanted.
        public var engine: EngineChoice = .auto
        /// `--fade-in` and `--alarm`: the start rises from silence to `volume` (and an alarm is never silent).
        public var wakeUp: WakeUp?

        public init(headless: Bool, reconnect: ReconnectPolicy? = nil, bufferingTimeout: Duration = .seconds(20), volume: Double = 1.0) {
            self.headless = headless
            self.reconnect = reconnect ?? (headless ? .headless : .listening)
            self.bufferingTimeout = bufferingTimeout
            self.volume = volume
        }
    }

    /// How playback ended, for the command's exit code.
    public enum Outcome: Equatable, Sendable {
        /// Quit was requested (Ctrl-C, q, MPRIS Quit).
        case quit
        /// A local file played to its end.
        case ended
        /// The stream could not be played after `reconnects` retries (0: the failure was not worth one).
        case gaveUp(PlaybackErrorKind, reconnects: Int)
    }

    /// The station playing (or trying to); changed only on the queue, by a switch.
    private var current: Station
    /// After the listener switched stations, giving up on one leaves the player on its error (the previous
    /// station one switch away) instead of ending the process.
    private var hasSwitched = false
    /// The stations to switch between (owned by the session; a Player made alone has its own).
    public let stations: StationCatalogue
    /// The next connection is to a station just switched to.
    private var freshStation = false
    private let bus: PluginBus
    private let options: Options
    private let logger: Logger
    /// Serial, on Dispatch's width-limited global pool: a plain serial queue is "overcommit" on
    /// Linux and gets a thread of its own when it wakes while others run, so a recorder of 100
    /// stations grew to 100 threads. Nothing on it blocks (resolving and status polls run elsewhere).
    private let queue = DispatchQueue(label: "oton.player", target: .global(qos: .userInitiated))
    private var machine: PlaybackStateMachine
    private var pipeline: (any StreamEngine)? {
        willSet {
            // A connection let go of: its bytes stay counted (``Snapshot/receivedBytes``).
            if let old = pipeline, newValue.map(ObjectIdentifier.init) != ObjectIdentifier(old) {
                earlierConnectionsBytes += old.flow.sourceBytes
                if old.flow.lastSourceBytesAt > 0 { lastByteAtBefore = old.flow.lastSourceBytesAt }
            }
        }
    }
    private var lastByteAtBefore: Int64?
    /// The light engine could not frame this station's stream: its connections use GStreamer (said once).
    private var lightUnsupported = false
    /// The engine found no audio at this station's extension-less URL: it is resolved (probed) from now on.
    private var probeUnprobed = false
    private var connection: UInt64 = 0
    /// Owns what is heard and its sequence number (see TrackAccumulator's rules).
    private var accumulator: TrackAccumulator
    private var lastStreamTitle: String?
    /// The current station's status API, when it has one (a new follower per station).
    private var statusFollower: StationStatusFollower?
    /// The output volume and its fades (on the queue); each change reaches the pipeline and the bus.
    private lazy var fader = VolumeFader(volume: options.volume, queue: queue) { [weak self] value in
        self?.pipeline?.setVolume(value)
        self?.bus.publish(.volume(value))
    }
    /// Waking up: the fade from silence still to start when audio plays (target volume, length).
    private var pendingFadeIn: (volume: Double, milliseconds: Int)?
    /// The latest wake-up's target and fade, for the tone when it takes over.
    private var wakeTarget: (volume: Double, milliseconds: Int)?
    /// An alarm's station (nil unless `--alarm`): giving up on it, or its silence for ``WakeUp/toneAfter``, plays the tone.
    private var alarmStation: Station?
    private var toneTimer: DispatchSourceTimer?
    private var playingTone = false
    private var retryTimer: DispatchSourceTimer?
    private var retryDelay: Duration?
    /// Said once per process: autoaudiosink fell back to a silent fake sink.
    private var warnedSilentOutput = false
    private var lastSinkWarning: String?
    private var bufferingTimer: DispatchSourceTimer?
    private var watchdog: DispatchSourceTimer?
    private var lastOutputBuffers: UInt64 = 0
    private var lastFlowAt = ContinuousClock.now
    private var pipelineStartedAt = ContinuousClock.now
    private var finished = false
    /// Playlist → stream URL before every connect; `liveResolution` counts the starts, and only the
    /// latest one's resolution (and diagnosis of an empty connection) counts.
    private lazy var resolver = StreamResolver(logger: logger)
    private let liveResolution = Mutex<UInt64>(0)
    private var resolvedStationTitle: String?
    /// The stream URL the latest pipeline played (a playlist's entry), to tell a reconnect to the same
    /// stream from one that lands elsewhere.
    private var connectedStreamURL: String?
    private let onFinish: @Sendable (Outcome) -> Void

    public init(station: Station, bus: PluginBus, options: Options, stations: StationCatalogue? = nil,
                logger: Logger = Logger(label: "oton.player"), onFinish: @escaping @Sendable (Outcome) -> Void) {
        current = station
        self.stations = stations ?? StationCatalogue(config: nil, started: station)
        self.bus = bus
        self.options = options
        self.logger = logger
        self.onFinish = onFinish
        machine = PlaybackStateMachine(policy: options.reconnect)
        accumulator = TrackAccumulator(streamURL: URL(string: current.url))
        accumulator.stationNames = [current.name]
        statusFollower = makeStatusFollower(for: station)
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
            case let .changeVolume(change):
                fader.cancel()
                fader.set(Double(VolumeArgument.relative(change).applied(to: VolumeArgument.percent(of: fader.volume))) / 100)
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
            case .quit:
                finish(.quit)
            }
        }
    }

    /// Stops the pipeline and waits until it is down (Ctrl-C, SIGTERM, tests).
    public func shutdown() {
        queue.sync {
            finished = true
            fader.cancel()
            toneTimer?.cancel()
            retryTimer?.cancel()
            bufferingTimer?.cancel()
            watchdog?.cancel()
            statusFollower?.stop()
            liveResolution.withLock { $0 += 1 }
            pipeline?.stop()
            pipeline = nil
        }
    }

    /// The state right now (read on the player's queue).
    public var state: PlaybackState {
        queue.sync { machine.state }
    }

    /// What the player itself holds, typed (read on the player's queue): for the control socket and the
    /// terminal, which used to read the volume back out of the last event's text.
    public struct Snapshot: Sendable {
        public var state: PlaybackState
        public var station: Station
        /// 0 … OutputVolume.maximum.
        public var volume: Double
        public var volumePercent: Int { VolumeArgument.percent(of: volume) }
        /// The engine of the current connection (nil while none runs).
        public var engine: EngineKind?
        /// Connections made so far (each reconnect is one more).
        public var connections: UInt64 = 0
        /// Bytes received over every connection, ICY metadata included.
        public var receivedBytes: UInt64 = 0
        /// When the current connection last received bytes (CLOCK_MONOTONIC ns; nil: not yet).
        public var lastByteAt: Int64?
    }

    /// The stations to switch between, as the catalogue has them now (``StationCatalogue/list``). Any thread.
    public var stationList: StationList { stations.list }

    /// The station playing (or trying to), read on the player's queue.
    public var station: Station { snapshot.station }

    public var snapshot: Snapshot {
        queue.sync {
            Snapshot(state: machine.state, station: current, volume: fader.volume, engine: pipeline?.kind, connections: connection,
                     receivedBytes: earlierConnectionsBytes + (pipeline?.flow.sourceBytes ?? 0),
                     lastByteAt: pipeline.flatMap { $0.flow.lastSourceBytesAt > 0 ? $0.flow.lastSourceBytesAt : nil } ?? lastByteAtBefore)
        }
    }

    // MARK: switching stations

    /// A new connection for everyone: the state machine stops (the current track ends, plugins see
    /// `stopped` and `idle` as on any stop) and plays again, now resolving and connecting to `next`.
    private func switchTo(_ next: Station) {
        guard !finished else { return }
        logger.info("switching from \(current.name) to \(next.name) (\(next.url))")
        stations.noteSwitch(to: next, from: current)
        hasSwitched = true
        fader.cancel()
        retryTimer?.cancel()
        retryTimer = nil
        statusFollower?.stop()
        handle(.stop)
        current = next
        statusFollower = makeStatusFollower(for: next)
        lightUnsupported = false
        probeUnprobed = false
        resolvedStationTitle = nil
        lastStreamTitle = nil
        // The old station's song ends here, not when the new one names a song: everyone (status,
        // MPRIS, the web remote, history) shows the new station with nothing heard yet.
        publish(accumulator.changeStation(streamURL: URL(string: next.url), stationNames: [next.name]))
        freshStation = true // the next connection keeps nothing of the old station's (its icy-name)
        handle(.play)
    }

    // MARK: waking up (--fade-in, --alarm, a snooze's ring)

    /// Silence, the fade still to come, and for an alarm the tone's deadline; playing is then up to the caller.
    private func prepare(_ wakeUp: WakeUp, volume target: Double) {
        fader.cancel()
        toneTimer?.cancel()
        toneTimer = nil
        let target = OutputVolume.clamped(target)
        wakeTarget = (target, wakeUp.fadeMilliseconds)
        pendingFadeIn = wakeUp.fadeMilliseconds > 0 ? (target, wakeUp.fadeMilliseconds) : nil
        fader.set(wakeUp.fadeMilliseconds > 0 ? 0 : target)
        guard let toneAfter = wakeUp.toneAfter else { return }
        if !playingTone, current.url != PipelineDescription.toneURL { alarmStation = current }
        let seconds = toneAfter.components.seconds
        toneTimer = schedule(after: toneAfter) { [weak self] in
            guard let self, !finished else { return }
            if case .playing = machine.state, !playingTone { return }
            if !playingTone { playTone(because: "no audio within \(seconds) s") }
        }
    }

    /// A ring after a snooze: back to the alarm's station (from the tone too), from silence.
    private func wake(_ wakeUp: WakeUp, volume target: Double) {
        guard !finished else { return }
        let back = playingTone ? alarmStation : nil
        prepare(wakeUp, volume: target) // while the tone still counts as playing, so the alarm's station stays the one to return to
        playingTone = false
        if let back {
            switchTo(back)
        } else if case .playing = machine.state {
            wokeUp()
        } else {
            handle(.play)
        }
    }

    /// Audio plays: the fade from silence starts; the station made it in time, so no tone.
    private func wokeUp() {
        if !playingTone {
            toneTimer?.cancel()
            toneTimer = nil
        }
        guard let fadeIn = pendingFadeIn else { return }
        pendingFadeIn = nil
        fader.fade(to: fadeIn.volume, over: fadeIn.milliseconds)
    }

    /// The alarm's station did not play: the built-in tone does, from silence again, and says why.
    private func playTone(because reason: String) {
        guard let alarmStation, !playingTone else { return }
        toneTimer?.cancel()
        toneTimer = nil
        playingTone = true
        logger.warning("\(tr("alarm: {station} could not be reached ({reason}): playing the alarm tone instead", ["station": alarmStation.name, "reason": reason]))")
        if let wakeTarget, wakeTarget.milliseconds > 0 {
            fader.cancel()
            fader.set(0)
            pendingFadeIn = wakeTarget
        }
        switchTo(Station(name: tr("alarm tone: {station} could not be reached", ["station": alarmStation.name]), url: PipelineDescription.toneURL))
    }

    // MARK: the state machine

    private func handle(_ event: PlaybackEvent) {
        guard !finished else { return }
        let before = machine.state
        guard let transition = machine.handle(event) else {
            logger.debug("ignored \(event) in \(before)")
            return
        }
        for effect in transition.effects { perform(effect) }
        if event == .stop && machine.state == .idle && before != .idle {
            bus.publish(.state(StateInfo(.stopped))) // stopped on request; idle follows
        }
        if machine.state != before && !Self.isMinorBufferingStep(from: before, to: machine.state) { publishState() }
        if case .playing = machine.state { wokeUp() }
    }

    private func perform(_ effect: PlaybackEffect) {
        switch effect {
        case .startPipeline:
            resolveThenStartPipeline()
        case .stopPipeline:
            bufferingTimer?.cancel()
            watchdog?.cancel()
            watchdog = nil
            if pipeline?.stop() == false {
                logger.warning("\(current.url): \(tr("the old connection did not stop within 2 s (a source blocked in a read); left behind"))")
            }
            pipeline = nil
        case .pausePipeline:
            pipeline?.setPlaying(false)
            bufferingTimer?.cancel()
            bufferingTimer = schedule(after: options.bufferingTimeout) { [weak self] in self?.handle(.failed(.bufferingTimeout)) }
        case .resumePipeline:
            bufferingTimer?.cancel()
            bufferingTimer = nil
            pipeline?.setPlaying(true)
        case let .scheduleRetry(delay):
            retryTimer?.cancel()
            retryDelay = delay
            logger.info("reconnecting to \(current.url) in \(delay)")
            retryTimer = schedule(after: delay) { [weak self] in self?.handle(.retryTimerFired) }
        case .cancelRetry:
            retryTimer?.cancel()
            retryTimer = nil
        case .giveUp:
            if case let .error(kind) = machine.state {
                if alarmStation != nil, !playingTone {
                    // After this transition is done and its error state announced: the switch is a transition of its own.
                    queue.async { [self] in playTone(because: kind.message(in: .current)) }
                } else if hasSwitched {
                    logger.warning("\(current.url): \(tr("gave up ({reason}); staying on the error: switch to another station or play to try again", ["reason": kind.message(in: .current)]))")
                } else {
                    finish(.gaveUp(kind, reconnects: max(0, machine.consecutiveFailures - 1)))
                }
            }
        }
    }

    /// Resolves the station's URL (a playlist becomes its first live entry) off this queue, then starts the pipeline.
    private func resolveThenStartPipeline() {
        let round = liveResolution.withLock { $0 += 1; return $0 }
        if let direct = resolver.resolveWithoutFetching(current.url) { return startPipeline(direct) }
        if !probeUnprobed, let unprobed = resolver.unprobed(current.url) { return startPipeline(unprobed) }
        pipeline?.stop()
        pipeline = nil
        resolver.resolve(current.url, userAgent: current.requestUserAgent, isCancelled: { [weak self] in self?.liveResolution.withLock { $0 } != round }) { [weak self] result in
            guard let self else { return }
            queue.async { [self] in
                guard !finished, liveResolution.withLock({ $0 }) == round, case .connecting = machine.state else { return }
                switch result {
                case let .success(stream):
                    startPipeline(stream)
                case let .failure(error):
                    logger.warning("\(current.url): \(error.detail)")
                    logger.debug("\(current.url): resolving failed → \(error.kind.code)")
                    handle(.failed(error.kind))
                }
            }
        }
    }

    /// The stream the current connection was made to (a fallback to GStreamer makes it again).
    private var lastResolved: ResolvedStream?

    /// Bytes received by connections already closed (for ``Snapshot/receivedBytes``).
    private var earlierConnectionsBytes: UInt64 = 0

    private func startPipeline(_ stream: ResolvedStream) {
        lastResolved = stream
        pipeline?.stop()
        connection += 1
        let stationNames = [current.name] + [stream.stationTitle].compactMap { $0 }
        if connection > 1, !freshStation, stream.url != connectedStreamURL {
            // A reconnect that lands on another stream (a playlist's other entry) is another station's sound.
            resolvedStationTitle = stream.stationTitle
            publish(accumulator.changeStation(streamURL: URL(string: stream.url), stationNames: stationNames))
        } else {
            // A first connection or one just after a switch starts fresh anyway; a reconnect keeps the song.
            accumulator.reset(keepStation: connection > 1 && !freshStation)
        }
        freshStation = false
        connectedStreamURL = stream.url
        accumulator.streamURL = URL(string: stream.url)
        resolvedStationTitle = stream.stationTitle
        accumulator.stationNames = stationNames
        if let playlist = stream.playlists.first { logger.info("\(playlist): playing the playlist's entry \(stream.url)") }
        lastStreamTitle = nil
        var description = PipelineDescription(url: stream.url, headless: options.headless, taps: bus.requestedTaps, volume: fader.volume)
        description.pcmFormats = bus.requestedPCMFormats
        description.decodes = options.decodes
        description.audioSink = options.audioSink
        description.titleEncoding = current.titleEncoding
        description.userAgent = current.requestUserAgent
        description.isHLS = stream.isHLS
        description.isDASH = stream.isDASH
        do {
            let connection = self.connection
            let onEvent: @Sendable (PipelineEvent) -> Void = { [weak self] event in
                guard let self else { return }
                queue.async { self.pipelineReported(event, connection: connection) }
            }
            let built: any StreamEngine
            if options.engine.kind(for: description) == .light && !lightUnsupported {
                built = LightStream(description, connection: connection, bus: bus, onEvent: onEvent) { [queue] work in queue.async(execute: work) }
            } else {
                built = try StreamPipeline(description, connection: connection, bus: bus, onEvent: onEvent)
            }
            pipeline = built
            pipelineStartedAt = .now
            startWatchdog()
            built.start()
            statusFollower?.connected()
        } catch {
            logger.error("\(tr("cannot build the pipeline: {reason}", ["reason": "\(error)"]))")
            pipeline = nil
            let kind: PlaybackErrorKind = error.missingElement == HLSDemuxerChoice.required ? .streamUnavailable(reason: .playlist(.hls)) : .decodeError
            queue.async { [self] in handle(.failed(kind)) }
        }
    }

    // MARK: pipeline reports

    private func pipelineReported(_ event: PipelineEvent, connection: UInt64) {
        guard connection == self.connection, pipeline != nil else { return } // a report from a pipeline already gone
        switch event {
        case .started:
            handle(.streamStarted)
            if !warnedSilentOutput, pipeline?.playsSilently == true {
                warnedSilentOutput = true
                let reason = lastSinkWarning.map { " (\($0))" } ?? ""
                logger.warning("\(tr("no sound device could be opened{reason}: oton plays, but you will hear nothing. On a server use --headless; on a desktop start PipeWire or PulseAudio, or choose an output with --audio-sink (pulsesink, pipewiresink, alsasink)", ["reason": reason]))")
            }
        case let .tags(tags, readAt):
            apply(tags, readAt: readAt)
        case let .buffering(percent):
            if percent >= 100 {
                handle(.bufferingFinished)
            } else if case .buffering = machine.state {
                handle(.bufferingProgress(percent: percent))
            } else {
                handle(.bufferingStarted(percent: percent))
            }
        case let .error(report):
            let kind = PlaybackErrorClassifier.classify(report)
            if resolveAfterAll(kind) { return }
            // The listener reads words; GStreamer's domain, codes and our classification are for debugging.
            logger.warning("\(current.url): \(report.message)")
            logger.debug("\(current.url): [\(report.domain) \(report.code)\(report.httpStatus.map { " HTTP \($0)" } ?? "")] → \(kind.code)")
            fail(kind)
        case let .warning(text):
            logger.debug("GStreamer warning: \(text)")
            lastSinkWarning = text
        case let .notice(text):
            logger.warning("\(text)")
        case let .failure(kind, detail):
            if resolveAfterAll(kind) { return }
            logger.info("\(current.url): \(detail)")
            logger.warning("\(current.url): \(kind.message(in: .current))")
            fail(kind)
        case let .needsPipeline(reason):
            if resolveAfterAll(.streamUnavailable(reason: .unsupportedFormat)) { return }
            guard options.engine == .auto else {
                logger.warning("\(current.url): \(tr("the light engine cannot record {reason} (--engine light)", ["reason": reason]))")
                return handle(.failed(.streamUnavailable(reason: .unsupportedFormat)))
            }
            logger.info("\(current.url): \(reason): the light engine cannot frame it, GStreamer takes over")
            lightUnsupported = true
            pipeline?.stop()
            pipeline = nil
            startPipeline(lastResolved!)
        case .endOfStream:
            if pipeline?.description.isAdaptive == true {
                // HLS and DASH end only when the manifest says so (#EXT-X-ENDLIST, a static MPD
                // played out): the broadcast is over, as a file is at its end. Reconnecting would
                // replay it from the start.
                logger.warning("\(current.url): \(tr("the broadcast has ended"))")
                handle(.stop)
                finish(.ended)
            } else if pipeline?.description.isLive == true {
                logger.warning("\(current.url): \(tr("the server ended the stream"))")
                fail(.networkUnavailable)
            } else {
                handle(.stop)
                finish(.ended)
            }
        }
    }

    /// The engine connected to an extension-less URL without a probe and found no audio it plays
    /// (a playlist, a page, HLS): the URL is resolved after all, as a URL with no stream behind it
    /// always was. True when that took over from the failure.
    private func resolveAfterAll(_ kind: PlaybackErrorKind) -> Bool {
        guard lastResolved?.unprobed == true, !probeUnprobed else { return false }
        switch kind {
        case .streamUnavailable(reason: .notAudio), .streamUnavailable(reason: .unsupportedFormat): break
        default: return false
        }
        logger.info("\(current.url): not audio at first sight; looking at what it is")
        probeUnprobed = true
        pipeline?.stop()
        pipeline = nil
        // The connection may have reported buffering before it failed: the state is not asked here.
        let round = liveResolution.withLock { $0 += 1; return $0 }
        resolver.resolve(current.url, userAgent: current.requestUserAgent, isCancelled: { [weak self] in self?.liveResolution.withLock { $0 } != round }) { [weak self] result in
            guard let self else { return }
            queue.async { [self] in
                guard !finished, liveResolution.withLock({ $0 }) == round else { return }
                switch result {
                case let .success(stream):
                    startPipeline(stream)
                case let .failure(error):
                    logger.warning("\(current.url): \(error.detail)")
                    handle(.failed(error.kind))
                }
            }
        }
        return true
    }

    /// A failure of the current connection, with the cause found when GStreamer could not name it
    /// (see EmptyConnectionDiagnosis: a server that sent nothing, a redirect loop …).
    private func fail(_ kind: PlaybackErrorKind) {
        guard let pipeline else { return handle(.failed(kind)) }
        switch EmptyConnectionDiagnosis.first(kind, isHTTP: pipeline.description.isLive, sourceBytes: pipeline.flow.sourceBytes) {
        case .keep:
            handle(.failed(kind))
        case .probe:
            // The pipeline is done with; the state machine hears of the failure once the cause is known (≤ 3 s).
            let elapsed = pipelineStartedAt.duration(to: .now)
            pipeline.stop()
            self.pipeline = nil
            watchdog?.cancel()
            // Any start since (a switch, a play) makes this diagnosis stale, also while that start
            // is still resolving a playlist and has no pipeline or connection number yet.
            let (connection, start) = (connection, liveResolution.withLock { $0 })
            EmptyConnectionDiagnosis.probe(pipeline.description.url, userAgent: pipeline.description.userAgent) { [weak self] failure in
                guard let self else { return }
                queue.async { [self] in
                    guard connection == self.connection, start == liveResolution.withLock({ $0 }), self.pipeline == nil else { return }
                    let better = EmptyConnectionDiagnosis.refine(kind, with: failure, elapsed: elapsed,
                                                                 sourceTimeoutSeconds: PipelineDescription.sourceTimeoutSeconds)
                    if better != kind { logger.info("\(current.url): \(better.message)") }
                    handle(.failed(better))
                }
            }
        }
    }

    // MARK: the watchdog

    /// Once a second (every 2 s for the light engine, whose recorders may run hundreds of these): in
    /// `playing`, the output must have received a buffer within `stallTimeout`.
    private func startWatchdog() {
        watchdog?.cancel()
        lastOutputBuffers = 0
        lastFlowAt = .now
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let period: DispatchTimeInterval = pipeline?.kind == .light ? .seconds(2) : .seconds(1)
        // Leeway lets the system wake once for many stations' watchdogs.
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(500))
        timer.setEventHandler { [weak self] in self?.checkFlow() }
        watchdog = timer
        timer.resume()
    }

    private func checkFlow() {
        guard let pipeline, !finished else { return }
        let output = pipeline.flow.outputBuffers
        guard output == lastOutputBuffers, case .playing = machine.state else {
            lastOutputBuffers = output
            lastFlowAt = .now
            return
        }
        guard lastFlowAt.duration(to: .now) >= options.stallTimeout else { return }
        let seconds = Int(options.stallTimeout.components.seconds)
        logger.warning("\(current.url): \(tr("playing, but no audio reached the output for {seconds} s ({bytes} bytes received in all); reconnecting", ["seconds": String(seconds), "bytes": String(pipeline.flow.sourceBytes)]))")
        lastFlowAt = .now
        handle(.failed(.stalled(seconds: seconds)))
    }

    private func apply(_ tags: TagSet, readAt: Int64? = nil) {
        let heardChanged = tags.origin == .stream && tags.title != nil && tags.title != lastStreamTitle
        if heardChanged { lastStreamTitle = tags.title }
        let report = accumulator.apply(tags)
        if heardChanged, let statusFollower {
            // The status API may know the artwork for the new title (see StationStatusLookup for the rule).
            let now = accumulator.current
            statusFollower.heardTrackChanged(.init(title: now.title, artist: now.artist, rawTitle: now.rawTitle))
        }
        guard let report else { return }
        publish(report, readAt: readAt)
    }

    /// A track event for everyone, with what plugins.json knows about the station.
    private func publish(_ report: TrackAccumulator.Report, readAt: Int64? = nil) {
        var published = report.track
        if published.station == nil { published.station = resolvedStationTitle ?? current.name }
        if let logo = current.logoURL.flatMap(URL.init(string:)) { published.stationLogoURL = logo }
        var event = BusEvent.track(published, sequence: report.sequence)
        // What plugins.json knows about the station rides along as open-ended fields.
        // When the tags were read from the stream lets plugins measure their latency.
        event.extraFields = [(OTON_FIELD_STATION_HOMEPAGE, current.homepage),
                             (OTON_FIELD_STATION_STATUS_URL, current.statusURL), (OTON_FIELD_TAG_MONO_NS, readAt.map { String($0) }),
                             (OTON_FIELD_STATION_COUNT, String(stationList.stations.count))]
            .compactMap { key, value in value.map { (key, $0) } }
        bus.publish(event)
    }

    // MARK: the station's status API

    private func makeStatusFollower(for station: Station) -> StationStatusFollower? {
        StationStatusFollower(station: station, queue: queue, logger: logger) { [weak self] status in
            self?.apply(TagSet(status: status))
        }
    }

    // MARK: state and volume

    /// While waiting to reconnect, the state event also says when (`retry_in_ms`) and how many
    /// attempts there are in all (`retry_max`, absent when unlimited), for a countdown.
    private func publishState() {
        var event = BusEvent.state(Self.stateInfo(machine.state, failures: machine.consecutiveFailures))
        if case .reconnecting = machine.state, let retryDelay {
            let (seconds, attoseconds) = retryDelay.components
            event.extraFields = [("retry_in_ms", String(seconds * 1000 + attoseconds / 1_000_000_000_000_000))]
            if let max = machine.policy.maxAttempts { event.extraFields.append(("retry_max", String(max))) }
        }
        bus.publish(event)
    }

    /// Buffering progress is announced in steps of 10 %, not for every percent.
    package static func isMinorBufferingStep(from old: PlaybackState, to new: PlaybackState) -> Bool {
        guard case let .buffering(before) = old, case let .buffering(after) = new else { return false }
        return before / 10 == after / 10
    }

    package static func stateInfo(_ state: PlaybackState, failures: Int) -> StateInfo {
        func detail(_ kind: PlaybackErrorKind) -> StateInfo.ErrorDetail {
            .init(kind: kind.code, message: kind.message, suggestion: kind.recoverySuggestion, playbackError: kind)
        }
        switch state {
        case .idle: return StateInfo(.idle)
        case .connecting: return StateInfo(.connecting, retryAttempt: failures)
        case .playing: return StateInfo(.playing)
        case let .buffering(percent): return StateInfo(.buffering, bufferingPercent: percent)
        case .paused: return StateInfo(.paused)
        case let .reconnecting(attempt, lastError): return StateInfo(.error, retryAttempt: attempt, error: detail(lastError))
        case let .error(kind): return StateInfo(.error, error: detail(kind))
        }
    }

    private func schedule(after delay: Duration, _ work: @escaping () -> Void) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let (seconds, attoseconds) = delay.components
        timer.schedule(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
        timer.setEventHandler(handler: work)
        timer.resume()
        return timer
    }

    private func finish(_ outcome: Outcome) {
        guard !finished else { return }
        finished = true
        onFinish(outcome)
    }
}
