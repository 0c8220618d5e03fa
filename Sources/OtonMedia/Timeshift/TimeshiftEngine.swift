import Foundation
import OtonEvents
import OtonSupport
import PluginAPI

/// A connection with timeshift (docs/timeshift.md): the light engine receives the stream into
/// the station's ``TimeshiftRing`` (bytes, titles, and a gap where a new connection starts), and a
/// GStreamer pipeline plays the ring from an appsrc (``TimeshiftFeeder``). Pausing pauses only
/// the playback; a seek builds a new playback pipeline at the ring offset asked for.
///
/// Titles follow the audio: the receiver's titles are noted in the ring, not reported; each is
/// reported when the mark events that travel with the audio say playback has passed it. So does the
/// stream tap (recordings): its bytes are published as they are heard, each title before its bytes
/// ("record what I hear"). The
/// receiver reports failures and the end of the stream; the playback reports its start,
/// buffering and errors; the Player cannot tell it from a plain pipeline.
///
/// Threads: the receiver's callbacks run on the curl driver thread, `heard` on the playback's
/// streaming thread, the rest on the Player's queue; `lock` guards the playback pipeline, its
/// feeder and what has been heard.
public final class TimeshiftEngine: StreamEngine, @unchecked Sendable {
    public let description: PipelineDescription
    public let ring: TimeshiftRing
    public var kind: EngineKind { .gstreamer }
    public var flow: PipelineFlow { receiver?.flow ?? PipelineFlow() }
    public var playsSilently: Bool { current.playback?.playsSilently ?? false }

    private let connection: UInt64
    private let bus: PluginBus
    private let onEvent: @Sendable (PipelineEvent) -> Void
    private let inOrder: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let wantsStreamTap: Bool
    private var receiver: LightStream?
    private let lock = NSLock()
    private var playback: StreamPipeline?
    private var feeder: TimeshiftFeeder?
    /// Heard up to here (the last mark that reached the output), and the notes reported up to here.
    private var heardOffset: UInt64 = 0
    private var reportedUpTo: UInt64 = 0
    /// The title at the start offset is yet to be reported (after a start or a seek).
    private var startTagsPending = true
    private var held = false
    /// The current playback pipeline reached PLAYING (its `.started`): a pause before that is not
    /// resumed in it (see ``release()``).
    private var playbackStarted = false
    /// The hold came before the playback pipeline had started.
    private var heldBeforeStart = false
    private var playing = true
    private var volume: Double
    private var levellingOn: Bool?
    /// The effect chain as `ctl effect` last set it: each new playback pipeline (a seek, live) starts with it.
    private var effects: [EffectSettings]
    private var stopped = false
    /// Which playback pipeline is the current one: a seek's old pipeline fades out beside the new one
    /// and its reports (started, marks heard) no longer count.
    private var generation: UInt64 = 0
    /// Playback follows the live edge (started there, or sent there by `live`); a pause or a seek back ends it.
    private var followingLive = true
    /// How long ago what is heard at the live edge was received (ns): the server's burst on connecting
    /// and the buffers. "Live" is this far behind the newest byte, as playback without timeshift is.
    private var liveLag: Int64 = 0
    /// Where this connection's bytes begin in the ring.
    private let connectionStart: UInt64
    /// The connection's first tags (its name, codec, bitrate) while its first ICY block is awaited, and
    /// the ring offset by which it must have come: the first track event carries the station's title,
    /// not the server's name alone (issue 54 §7). The driver thread's.
    private var headerTags: (tags: TagSet, until: UInt64)?
    private var notedAny = false
    private var ringFailed = false
    /// The receiver has the whole of a finite programme: it ends at this ring offset (issue 54 §9).
    private var programmeEnd: UInt64?

    public init(
        _ description: PipelineDescription, ring: TimeshiftRing, connection: UInt64, bus: PluginBus,
        onEvent: @escaping @Sendable (PipelineEvent) -> Void,
        inOrder: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) throws(PipelineBuildError) {
        self.description = description
        self.ring = ring
        self.connection = connection
        self.bus = bus
        self.onEvent = onEvent
        self.inOrder = inOrder
        wantsStreamTap = description.taps & OTON_TAP_STREAM != 0
        volume = description.volume
        effects = description.effects
        if ring.extent.heldBytes > 0 { ring.note(.gap) }  // a new connection: the bytes before it are another stream's
        connectionStart = ring.extent.head
        let resume = ring.resumeOffset
        followingLive = resume == nil
        try makePlayback(at: resume ?? ring.extent.head)
        var receiving = description
        receiving.taps &= ~OTON_TAP_STREAM  // published as heard (see heard(_:)), not as received
        receiver = LightStream(
            receiving, connection: connection, bus: bus,
            onEvent: { [weak self] event in
                self?.received(event)
            }, inOrder: inOrder,
            onAudio: { [weak self] bytes in
                guard let self else { return }
                if let failure = ring.write(bytes) {
                    self.unwritable(failure)
                    return
                }
                if let held = headerTags, ring.extent.head >= held.until { noteFirst(held.tags) }  // no ICY block came
                current.feeder?.dataArrived()
            })
    }

    private var current: (playback: StreamPipeline?, feeder: TimeshiftFeeder?) {
        lock.lock(); defer { lock.unlock() }
        return (playback, feeder)
    }

    // MARK: StreamEngine

    public func start() {
        receiver?.start()
        current.playback?.start()
    }

    /// Buffering pauses and resumes the playback; the receiver goes on.
    public func setPlaying(_ playing: Bool) {
        lock.lock()
        self.playing = playing
        let playback = held ? nil : self.playback
        lock.unlock()
        playback?.setPlaying(playing)
    }

    public func setVolume(_ value: Double) {
        lock.lock(); volume = value; lock.unlock()
        current.playback?.setVolume(value)
    }

    public var levelling: LevellingReading? { current.playback?.levelling }

    public func setLevelling(enabled: Bool) {
        lock.lock(); levellingOn = enabled; lock.unlock()
        current.playback?.setLevelling(enabled: enabled)
    }

    /// Reaches the playback pipeline playing now, and every one a seek makes after it.
    public func setEffects(_ settings: [EffectSettings]) {
        lock.lock(); effects = settings; lock.unlock()
        current.playback?.setEffects(settings)
    }

    public var effectReadings: [EffectReading] { current.playback?.effectReadings ?? [] }

    @discardableResult
    public func stop() -> Bool {
        lock.lock()
        stopped = true
        let (playback, feeder) = (self.playback, self.feeder)
        ring.resumeOffset = followingLive && !held ? nil : heardOffset
        lock.unlock()
        feeder?.stop()
        let receiverStopped = receiver?.stop() ?? true
        let playbackStopped = playback?.stop() ?? true
        return receiverStopped && playbackStopped
    }

    // MARK: pause and seek (the Player's queue)

    /// The listener paused: playback stops where it is; the receiver goes on filling the ring.
    public func hold() {
        lock.lock()
        held = true
        heldBeforeStart = !playbackStarted
        followingLive = false
        let playback = self.playback
        lock.unlock()
        playback?.fadeOutThenPause()
    }

    /// Play from where it was held; reports `.started` (the Player is connecting again).
    ///
    /// A pipeline paused while it was starting (the first half second) is not played on: taken to
    /// PAUSED on its way to PLAYING, it played again silent for as long as the pause had lasted
    /// (issue 54 §3), or not paused at all. A new one plays from where it was held instead.
    public func release() {
        lock.lock()
        held = false
        let playback = self.playback
        let restart = heldBeforeStart
        heldBeforeStart = false
        let offset = heardOffset
        lock.unlock()
        if restart {
            restartPlayback(at: offset, live: false, crossFade: false)
        } else {
            playback?.fadeInThenPlay()
        }
        onEvent(.started)
    }

    /// Where playback is: how far behind live, how much the ring holds.
    public var position: TimeshiftPosition {
        let now = Clock.monotonicNanoseconds()
        let extent = ring.extent
        lock.lock(); defer { lock.unlock() }
        let heardTime = ring.time(at: heardOffset) ?? now
        let behind = followingLive ? 0 : max(0, now - heardTime - liveLag)
        return TimeshiftPosition(behindLive: behind, held: extent.span, limit: Int64(ring.settings.seconds * 1e9))
    }

    /// Moves playback by `nanoseconds` (negative: back). Returns what happened.
    public func seek(by nanoseconds: Int64) -> TimeshiftSeek {
        let now = Clock.monotonicNanoseconds()
        let base: Int64
        do {
            lock.lock(); defer { lock.unlock() }
            base = ring.time(at: heardOffset) ?? now
        }
        return seek(toTime: base + nanoseconds, now: now)
    }

    /// Plays from `nanoseconds` behind live (0: live).
    public func seek(behindLive nanoseconds: Int64) -> TimeshiftSeek {
        let now = Clock.monotonicNanoseconds()
        return seek(toTime: now - lagAtLive - max(0, nanoseconds), now: now)
    }

    private var lagAtLive: Int64 {
        lock.lock(); defer { lock.unlock() }
        return liveLag
    }

    private func seek(toTime target: Int64, now: Int64) -> TimeshiftSeek {
        let extent = ring.extent
        if target >= now - lagAtLive - 500_000_000 {
            restartPlayback(at: ring.offset(at: now - lagAtLive), live: true)
            return .live
        }
        if let start = extent.startTime, target < start {
            restartPlayback(at: extent.start, live: false)
            return .clampedToStart(held: extent.span)
        }
        restartPlayback(at: ring.offset(at: target), live: false)
        return .moved
    }

    /// A new playback pipeline at `offset`, paused if the listener has paused. A cross-fade: the old
    /// one fades out (8 ms) and plays out what its sink holds; the new one runs at once but silent,
    /// so its sink fills meanwhile, and rises (8 ms) when the old one's fade leaves the old leveller.
    /// Both sinks hold about as much, so the rise is heard as the fall is: no cut mid-wave (a click),
    /// no stretch of both at once (their sum was up to 4 dB loud), no gap of a pipeline's start.
    ///
    /// Without `crossFade` (the old one was never heard) the old one stops at once and the new one plays
    /// from its first sound.
    private func restartPlayback(at offset: UInt64, live: Bool, crossFade: Bool = true) {
        lock.lock(); followingLive = live; lock.unlock()
        let (old, oldFeeder) = current
        // The new pipeline levels from what the old one measured (a station heard for the first time
        // too: else its first second plays at the unlevelled gain, a burst).
        let measured = old?.levelling.flatMap { $0.enabled && $0.measuredSeconds > 0 ? $0.loudnessLUFS : nil }
        do {
            try makePlayback(at: offset, measuredLUFS: measured)
        } catch {
            oldFeeder?.stop()
            old?.stop()
            onEvent(.failure(.decodeError, detail: "\(error)"))
            return
        }
        lock.lock()
        let (playback, held, playing, volume, levellingOn) = (self.playback, self.held, self.playing, self.volume, self.levellingOn)
        lock.unlock()
        playback?.setVolume(volume)
        if let levellingOn { playback?.setLevelling(enabled: levellingOn) }
        if let old, crossFade {
            playback?.beginSilent()
            old.fadeOutThenStop(
                faded: {
                    guard let playback else { return }
                    playback.riseFromSilence(heardWithTheFallOf: old)
                }, first: { oldFeeder?.stop() })
        } else {
            oldFeeder?.stop()
            _ = old?.stop()
        }
        if held || !playing { playback?.setPlaying(false) } else { playback?.start() }
    }

    private func makePlayback(at asked: UInt64, measuredLUFS: Double? = nil) throws(PipelineBuildError) {
        let start = ring.playbackStart(at: asked)
        let offset = start.offset
        let feeder = TimeshiftFeeder(ring: ring, from: offset, prefix: start.prefix) { [onEvent] text in onEvent(.notice(text)) }
        if let end = lock.withLock({ programmeEnd }) { feeder.end(at: end) }
        var playbackDescription = description
        playbackDescription.taps &= ~OTON_TAP_STREAM  // the receiver publishes the stream as it arrives
        lock.lock()
        playbackDescription.effects = effects
        lock.unlock()
        if let measuredLUFS { playbackDescription.levelling?.rememberedLUFS = measuredLUFS }
        lock.lock()
        generation += 1
        let made = generation
        lock.unlock()
        let playback = try StreamPipeline(
            playbackDescription, connection: connection, bus: bus, feeder: feeder,
            heard: { [weak self] offset in self?.heard(offset, by: made) },
            onEvent: { [weak self] event in self?.played(event, by: made) })
        lock.lock()
        self.playback = playback
        self.feeder = feeder
        heardOffset = offset
        reportedUpTo = offset
        startTagsPending = true
        playbackStarted = false
        lock.unlock()
    }

    // MARK: reports

    /// The receiver's reports (driver thread): titles go into the ring; its own start is not news.
    private func received(_ event: PipelineEvent) {
        switch event {
        case let .tags(tags, _):
            if let held = headerTags {
                noteFirst(tags.filling(from: held.tags))
            } else if !notedAny, tags.title == nil, let interval = receiver?.icyInterval, interval > 0 {
                // Titles are on their way: the first block comes after `interval` bytes (with room for a late one).
                headerTags = (tags, ring.extent.head + UInt64(2 * interval + TimeshiftFeeder.pieceBytes))
            } else if !notedAny {
                noteFirst(tags)
            } else {
                ring.note(.tags(tags))
            }
        case .started:
            break
        case .programmeEnded:  // the playback says so when it has played it all
            if let held = headerTags { noteFirst(held.tags) }
            let feeder = lock.withLock {
                programmeEnd = ring.extent.head; return self.feeder
            }
            feeder?.end(at: ring.extent.head)
        case .buffering, .error, .warning, .notice, .endOfStream, .failure, .needsPipeline, .timeshiftUnwritable:
            onEvent(event)
        }
    }

    /// The ring could not take the bytes (a full disk): said once, and the Player plays the station on
    /// without timeshift (the sound stopped at the ring's end and the player blamed the connection).
    private func unwritable(_ reason: String) {
        lock.lock()
        let first = !ringFailed
        ringFailed = true
        lock.unlock()
        if first { onEvent(.timeshiftUnwritable(reason: reason)) }
    }

    /// The playback's reports: its tags are the ring's own titles again (dropped: they were noted).
    private func played(_ event: PipelineEvent, by made: UInt64) {
        guard isCurrent(made) else { return }  // a pipeline fading out after a seek
        if case .started = event { lock.withLock { playbackStarted = true } }
        switch event {
        case .tags:
            break
        case .endOfStream:
            onEvent(lock.withLock { programmeEnd } == nil ? event : .programmeEnded)
        case .started, .buffering, .error, .warning, .notice, .programmeEnded, .failure, .needsPipeline, .timeshiftUnwritable:
            onEvent(event)
        }
    }

    /// A mark reached the output (streaming thread): what was noted before it is heard now.
    private func heard(_ offset: UInt64, by made: UInt64) {
        lock.lock()
        guard !stopped, made == generation, offset >= reportedUpTo else { lock.unlock(); return }
        let from = reportedUpTo
        let startTags = startTagsPending ? ring.tags(at: from) : nil
        startTagsPending = false
        heardOffset = offset
        reportedUpTo = offset
        let now = Clock.monotonicNanoseconds()
        if followingLive, let heardTime = ring.time(at: offset) { liveLag = max(0, now - heardTime) }
        lock.unlock()
        if let startTags { onEvent(.tags(startTags, monotonicNanoseconds: now)) }
        var published = from
        // The feeder ends a piece at each mark and sends the mark's event before the mark's first byte:
        // a title noted at `offset` starts now (those at `from` were announced with the mark before).
        for mark in offset > from ? ring.marks(in: (from + 1)..<(offset + 1)) : [] {
            publishStream(published..<mark.offset)
            published = mark.offset
            switch mark.note {
            case let .tags(tags):
                onEvent(.tags(tags, monotonicNanoseconds: now))
            case .gap:
                onEvent(.notice(tr("the connection was lost here and made again: a gap in what the timeshift holds")))
            }
        }
        publishStream(published..<offset)
    }

    /// The connection's first tags, heard from its first byte when playback has not passed it yet.
    private func noteFirst(_ tags: TagSet) {
        headerTags = nil
        notedAny = true
        // Under the lock, so that playback cannot pass the offset between the look and the note.
        lock.lock(); defer { lock.unlock() }
        if reportedUpTo <= connectionStart {
            ring.note(tags, at: connectionStart)
            // Playback stands at that very offset: the next mark heard announces the tags in force there.
            if reportedUpTo == connectionStart { startTagsPending = true }
        } else {
            ring.note(.tags(tags))
        }
    }

    private func isCurrent(_ made: UInt64) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return made == generation
    }

    /// The heard bytes on the stream tap, on the Player's queue after the titles reported before them.
    private func publishStream(_ range: Range<UInt64>) {
        guard wantsStreamTap, let taps = receiver?.taps else { return }
        var next = range.lowerBound
        while next < range.upperBound {
            let (bytes, from) = ring.read(from: next, upTo: Int(min(range.upperBound - next, 16 * 1024)))
            guard !bytes.isEmpty, from < range.upperBound else { return }
            let end = min(from + UInt64(bytes.count), range.upperBound)
            if let packet = bytes[..<Int(end - from)].withUnsafeBytes({ taps.streamPacket(bytes: $0) }) {
                inOrder { taps.publish(packet) }
            }
            next = end
        }
    }
}

/// Where timeshift playback is (nanoseconds).
public struct TimeshiftPosition: Sendable, Equatable {
    /// How far behind the live edge what is heard is (0 at live).
    public var behindLive: Int64
    /// How much the ring holds now.
    public var held: Int64
    /// How much it may hold (its setting).
    public var limit: Int64
}

/// What a seek did.
public enum TimeshiftSeek: Sendable, Equatable {
    case moved
    /// It reached (or passed) the live edge: playing live.
    case live
    /// It was before the oldest audio held: playing from there (the ring held this much).
    case clampedToStart(held: Int64)
}
