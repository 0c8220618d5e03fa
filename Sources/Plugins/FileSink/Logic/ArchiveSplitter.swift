/// Decides where archive segments begin and end: at wall-clock boundaries (``ArchivePeriod``), at
/// the frame or page whose start is nearest the boundary (the first one whose middle lies past it),
/// so consecutive segments hold every unit received exactly once. A reconnect, lost data or a
/// stall is not a cut: it is a gap inside the segment (the ledger says when, how long and why). Only
/// a change of format starts a new segment early. An Ogg segment cut inside a logical stream starts
/// with that stream's header pages (repeated: `headerBytes`). Fed the units ``StreamUnitReader``
/// made and the wall time each buffer arrived; pure logic.
public struct ArchiveSplitter {
    public struct Segment: Equatable, Sendable {
        public var id: Int
        /// Wall time of the first unit (nanoseconds since 1970).
        public var start: Int64
        /// The boundaries of the segment's period.
        public var periodStart: Int64
        public var periodEnd: Int64
        /// The segment began at its period's boundary (not at the start of the recording, after an outage or a format change).
        public var fromBoundary: Bool
        public var container: StreamContainer
        public var caps: String
        public var bytes: UInt64 = 0
        /// Frames or pages of audio (repeated Ogg headers not counted).
        public var frames: Int = 0
        public var audioNanoseconds: Int64 = 0
        /// Ogg header pages repeated at the start of the segment (bytes not received at this place).
        public var headerBytes: UInt64 = 0
        /// Wall time just after the last unit.
        public var end: Int64
    }

    public enum GapReason: String, Sendable {
        case reconnect
        case sourceDown = "source-down"
        case stall
        case lostData = "lost-data"
    }

    public struct Gap: Equatable, Sendable {
        /// When the audio stopped (wall time).
        public var at: Int64
        /// Audio missing; 0 when the new connection's first audio repeats what was already received.
        public var missingNanoseconds: Int64
        /// Audio received twice (a server's burst after a reconnect repeats its last seconds).
        public var overlapNanoseconds: Int64
        public var reason: GapReason
        /// Bytes of an incomplete unit thrown away at the gap.
        public var discardedBytes: Int
    }

    public enum EndReason: String, Sendable {
        /// It reached its boundary.
        case boundary
        /// The stream changed format: another codec needs another file.
        case formatChanged = "format-changed"
        /// The recording stopped (SIGTERM, --duration, a write error).
        case stopped
    }

    public enum Action: Equatable, Sendable {
        case begin(Segment)
        case write(bytes: [UInt8])
        case gap(Gap, offsetNanoseconds: Int64)
        /// A title heard `offsetNanoseconds` into the segment (at the start: the title in effect then).
        case title(TrackMetadata, at: Int64, offsetNanoseconds: Int64)
        case end(Segment, EndReason)
    }

    public let period: ArchivePeriod
    /// Stop after this much audio in all (`--duration` in archive-only mode), to the frame; 0: no limit.
    public var audioLimit: Int64 = 0
    /// Audio placed in every segment so far.
    public private(set) var audioPlaced: Int64 = 0
    /// The limit was reached: the last segment has ended and nothing more is placed.
    public var reachedLimit: Bool { audioLimit > 0 && audioPlaced >= audioLimit }
    private var timeline = ArchiveTimeline()
    private var current: Segment?
    private var nextID = 1
    private var codecHeaders: [StreamUnit] = []
    private var latest: TrackMetadata?
    /// The last connection's audio ended here; the next connection's first unit measures the gap.
    private var pendingGap: (at: Int64, reason: GapReason, discarded: Int)?
    /// Errors the player reported since audio last arrived (state events): how a reconnect is named.
    private var errorsSinceAudio: [String] = []
    /// Where the audio received so far ended (wall time); nil before the first unit.
    private var audioEnd: Int64?
    /// The last segment ended at its boundary: the next one begins there.
    private var cutAtBoundary = false

    public init(period: ArchivePeriod, timeline: ArchiveTimeline = ArchiveTimeline()) {
        self.period = period
        self.timeline = timeline
    }

    public var currentSegment: Segment? { current }

    /// A buffer read into units, which arrived at `arrival` (wall time).
    public mutating func receive(_ reading: StreamUnitReader.Reading, arrival: Int64) -> [Action] {
        var actions: [Action] = []
        if let gap = reading.gap {
            if gap == .formatChanged || (current != nil && current?.container != reading.container && reading.container != .unknown) {
                actions += endCurrent(.formatChanged)
            }
            if gap == .newConnection || gap == .lostData {
                codecHeaders = gap == .newConnection ? [] : codecHeaders
                if let audioEnd {
                    pendingGap = (audioEnd, gap == .lostData ? .lostData : reconnectReason(), reading.discardedBytes)
                }
                timeline.restart()
            } else {
                codecHeaders = []
            }
        }
        guard !reading.units.isEmpty, !reachedLimit || current != nil,
            reading.container != .unknown || reading.caps != StreamUnitReader.unknownCaps
        else { return actions }
        let audio = reading.units.reduce(Int64(0)) { $0 + $1.unit.durationNanoseconds }
        if let stall = timeline.observe(arrival: arrival, audio: audio) {
            let gap = Gap(at: stall.at, missingNanoseconds: stall.nanoseconds, overlapNanoseconds: 0, reason: .stall, discardedBytes: 0)
            actions.append(.gap(gap, offsetNanoseconds: current?.audioNanoseconds ?? 0))
            if var segment = current { segment.end = timeline.now; current = segment }
            audioEnd = timeline.now
        }
        errorsSinceAudio = []
        let unitsHaveDurations = audio > 0
        for (unit, _) in reading.units {
            if reachedLimit {
                actions += endCurrent(.stopped)
                break
            }
            // Without durations (a container that is not framed), the arrival dates each piece.
            let time = unitsHaveDurations ? timeline.now : arrival
            actions += place(unit, at: time, container: reading.container, caps: reading.caps)
            timeline.advance(by: unit.durationNanoseconds)
        }
        return actions
    }

    /// A track event: the ledger's cue sheet.
    public mutating func track(_ metadata: TrackMetadata) -> [Action] {
        guard metadata.sequence != latest?.sequence else { return [] }
        latest = metadata
        guard let segment = current, metadata.title != nil || metadata.artist != nil else { return [] }
        return [.title(metadata, at: segment.end, offsetNanoseconds: segment.audioNanoseconds)]
    }

    /// The player reported an error (its `error_kind`): the next connection's gap is named from these.
    public mutating func playerError(kind: String) {
        if errorsSinceAudio.count < 16 { errorsSinceAudio.append(kind) }
    }

    /// The recording ends: the current segment ends early.
    public mutating func finish() -> [Action] {
        endCurrent(.stopped)
    }

    // MARK: -

    /// One failed attempt is a reconnect; more, the source was down; a stall the player saw is a stall.
    private func reconnectReason() -> GapReason {
        if errorsSinceAudio.count >= 2 { return .sourceDown }
        return errorsSinceAudio.first == "stalled" ? .stall : .reconnect
    }

    private mutating func place(_ unit: StreamUnit, at time: Int64, container: StreamContainer, caps: String) -> [Action] {
        var actions: [Action] = []
        if unit.beginsLogicalStream { codecHeaders = [] }
        if unit.isCodecHeader {
            codecHeaders.append(unit)
            if codecHeaders.count > 16 { codecHeaders.removeFirst() }  // headers are a few pages; never unbounded
        }
        let middle = time + unit.durationNanoseconds / 2
        if let segment = current, !unit.isCodecHeader, middle >= segment.periodEnd {
            if let gap = pendingGap, gap.at < segment.periodEnd {
                // An outage across the boundary: its first part is missing from the segment that ends.
                let part = Gap(
                    at: gap.at, missingNanoseconds: segment.periodEnd - gap.at, overlapNanoseconds: 0, reason: gap.reason,
                    discardedBytes: gap.discarded)
                actions.append(.gap(part, offsetNanoseconds: segment.audioNanoseconds))
                pendingGap = (segment.periodEnd, gap.reason, 0)
            }
            actions += endCurrent(.boundary)
        }
        if current == nil {
            actions += begin(at: time, middle: middle, container: container, caps: caps)
            if container.hasCodecHeaders && !unit.isCodecHeader && !unit.beginsLogicalStream {
                for header in codecHeaders { actions += write(header, repeated: true, end: time) }
            }
        }
        if var gap = pendingGap, let segment = current {
            pendingGap = nil
            gap.at = max(gap.at, min(segment.periodStart, time))  // periods wholly inside the outage have no segment
            let difference = time - gap.at
            let measured = Gap(
                at: gap.at, missingNanoseconds: max(0, difference), overlapNanoseconds: max(0, -difference),
                reason: gap.reason, discardedBytes: gap.discarded)
            actions.append(.gap(measured, offsetNanoseconds: current?.audioNanoseconds ?? 0))
        }
        actions += write(unit, repeated: false, end: time + unit.durationNanoseconds)
        return actions
    }

    private mutating func begin(at time: Int64, middle: Int64, container: StreamContainer, caps: String) -> [Action] {
        let periodStart = period.start(containing: middle)
        let segment = Segment(
            id: nextID, start: time, periodStart: periodStart, periodEnd: period.boundary(after: middle),
            fromBoundary: cutAtBoundary && abs(time - periodStart) <= 500_000_000,
            container: container, caps: caps, end: time)
        nextID += 1
        current = segment
        var actions: [Action] = [.begin(segment)]
        if let latest, latest.title != nil || latest.artist != nil { actions.append(.title(latest, at: time, offsetNanoseconds: 0)) }
        return actions
    }

    private mutating func write(_ unit: StreamUnit, repeated: Bool, end: Int64) -> [Action] {
        guard var segment = current else { return [] }
        segment.bytes += UInt64(unit.bytes.count)
        if repeated {
            segment.headerBytes += UInt64(unit.bytes.count)
        } else if !unit.isCodecHeader {
            segment.frames += 1
        }
        segment.audioNanoseconds += unit.durationNanoseconds
        audioPlaced += unit.durationNanoseconds
        segment.end = max(segment.end, end)
        current = segment
        audioEnd = segment.end
        return [.write(bytes: unit.bytes)]
    }

    private mutating func endCurrent(_ reason: EndReason) -> [Action] {
        guard let segment = current else { return [] }
        current = nil
        cutAtBoundary = reason == .boundary
        return [.end(segment, reason)]
    }
}
