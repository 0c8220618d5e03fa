import OtonStreamFraming

/// Decides where one file ends and the next begins. Fed the stream tap's
/// buffers and the host's track events in the order they arrive; answers
/// with what to do to files. Pure logic: no files, no clocks.
///
/// - A title change (a new `sequence`) cuts at the next unit boundary (MPEG
///   frame, Ogg page) after the bytes received so far. A break (an ad, an
///   empty title) is a new sequence too: it ends the song's file and is
///   recorded as its own file ("Break", by the station) until the next title. In a chained Ogg stream a new logical
///   stream (BOS page) is the cut; a title that arrives without one cuts at
///   the next page after `oggCutWait` and repeats the codec headers.
/// - A new connection, lost data or a format change ends the file as
///   incomplete: data from before and after a gap never share a file.
/// - The first file of a connection starts mid-track (incomplete); a file is
///   complete only when it both started and ended at a title change.
public struct TrackSplitter {
    public struct Segment: Equatable, Sendable {
        public var id: Int
        public var metadata: TrackMetadata?
        /// Started at a title change (its beginning is the track's beginning).
        public var startedAtBoundary: Bool
        public var container: StreamContainer
        public var caps: String
        public var connection: UInt64
        /// Bytes of this connection's stream before the segment's first byte.
        public var streamOffset: UInt64
        public var bytes: UInt64 = 0
        public var durationNanoseconds: Int64 = 0
        /// Where the stream was (monotonic ns) when the segment began.
        public var startedMonotonic: Int64
        /// It ended without a title change: the recording stopped, the connection broke, data was lost
        /// (a track still in progress, whatever its length, is kept as incomplete rather than dropped as short).
        public var cutShort = false
        /// Ogg: the granule position at the cut (0 at the start of a chain); nil when the
        /// recording joined a logical stream in the middle and the position is not known yet.
        public var granuleBase: Int64?
        /// Ogg: audio at the end of the last page past `--duration`, trimmed by its granule position when the file is finished.
        public var trimNanoseconds: Int64 = 0
    }

    public enum Action: Equatable, Sendable {
        case begin(Segment)
        case write(segment: Int, bytes: [UInt8], nanoseconds: Int64)
        /// The track is now known (a title event claimed a segment begun without one).
        case rename(segment: Int, metadata: TrackMetadata)
        /// The segment is over; `complete` when it began and ended at title changes.
        case end(Segment, complete: Bool)
        /// `--no-split`: a new track begins `nanoseconds` into the segment (for the CUE sheet).
        case mark(segment: Int, metadata: TrackMetadata, nanoseconds: Int64)
    }

    /// One buffer from the stream tap.
    public struct Buffer: Sendable {
        public var bytes: [UInt8]
        public var caps: String
        public var newConnection: Bool
        public var discontinuity: Bool
        public var formatChanged: Bool
        public var offset: UInt64
        public var connection: UInt64
        public var monotonicNanoseconds: Int64

        public init(
            bytes: [UInt8], caps: String, newConnection: Bool = false, discontinuity: Bool = false, formatChanged: Bool = false,
            offset: UInt64 = 0, connection: UInt64 = 1, monotonicNanoseconds: Int64 = 0
        ) {
            self.bytes = bytes
            self.caps = caps
            self.newConnection = newConnection
            self.discontinuity = discontinuity
            self.formatChanged = formatChanged
            self.offset = offset
            self.connection = connection
            self.monotonicNanoseconds = monotonicNanoseconds
        }
    }

    /// false: one file per connection (`--no-split`).
    public var split: Bool
    /// How long a title change on an Ogg stream waits for a new logical stream before cutting without one.
    public var oggCutWait: Int64
    /// A file longer than this ends (incomplete) and the track goes on in a new one: WAV cannot hold 4 GiB.
    public var maxSegmentBytes: UInt64 = .max
    /// Silence search and padding (MPEG audio, ADTS, PCM); inactive when all are 0.
    public var aligner: CutAligner
    /// Loudness of the decoded audio beside an encoded stream, for the silence search.
    public var loudness: LoudnessTimeline? {
        didSet { bindLoudness() }
    }
    /// The aligner's time axis matches the decoded audio's: false after lost data within a connection.
    private var timebaseValid = true

    private var container: StreamContainer = .unknown
    private var caps = ""
    private var connection: UInt64 = 0
    private var current: Segment?
    /// The current segment's title came from before a gap: the next title event replaces it rather than cutting.
    private var currentTitleIsCarried = false
    /// Audio pages were seen since the last codec headers (a BOS page after them starts a new chain).
    private var chainHasAudio = false
    private var nextID = 1
    private var latest: TrackMetadata?
    /// `latest` arrived after the last unit was placed: at the start of a connection it is the new connection's own
    /// title (the PCM tap starts after the decoder, so its first title comes before its first audio), not one carried
    /// over. Buffers that complete no unit yet (held before the type is known, or a framer waiting for the next
    /// frame's sync, as with one parsed ADTS frame per buffer from HLS) leave it as it is.
    private var latestIsFresh = false
    private var pendingCut: (metadata: TrackMetadata, deadline: Int64)?
    private var codecHeaders: [StreamUnit] = []
    /// Ogg: the caps of the chain now running, from its BOS page; a chained stream may change codec
    /// (an Opus chain, then a Vorbis one), and each file is named after its own (issue 39 §3).
    private var chainCaps: String?
    /// Ogg: granule position after the last audio page placed (see Segment.granuleBase).
    private var oggGranule: Int64?
    private var lastMonotonic: Int64 = 0
    /// What the host's stream tap says until its typefinder has decided.
    public static let unknownCaps = StreamUnitReader.unknownCaps
    /// Frames the buffers (when fed by ``receive(_:)-(Buffer)``).
    private var reader = StreamUnitReader()
    /// How long the start of a connection may stay untitled and still take the first title as its own.
    static let untitledGrace: Int64 = 5_000_000_000

    public init(split: Bool = true, oggCutWait: Int64 = 3_000_000_000, aligner: CutAligner = CutAligner(window: 0, pre: 0, post: 0)) {
        self.split = split
        self.oggCutWait = oggCutWait
        self.aligner = aligner
    }

    /// Title changes go through the aligner (the stream's units have exact durations and cuts may move).
    private var aligning: Bool { split && aligner.isActive && container.supportsAlignedCuts }

    public var currentSegment: Segment? { current }

    /// A buffer from the stream tap.
    public mutating func receive(_ buffer: Buffer) -> [Action] {
        reader.readings(buffer).flatMap { receive($0, monotonicNanoseconds: buffer.monotonicNanoseconds) }
    }

    /// A buffer already read into units (the recorder reads each buffer once for the tracks and the archive).
    public mutating func receive(_ reading: StreamUnitReader.Reading, monotonicNanoseconds: Int64) -> [Action] {
        var actions: [Action] = []
        lastMonotonic = monotonicNanoseconds
        if let gap = reading.gap {
            actions += flushAligner()
            actions += endCurrent(complete: false)
            container = reading.container
            caps = reading.caps
            if gap != .lostData {
                chainCaps = nil
                codecHeaders = []
                chainHasAudio = false
                oggGranule = nil
            }
            timebaseValid = gap == .newConnection
            connection = reading.connection
            pendingCut = nil
            bindLoudness()
        } else if reading.caps != caps {
            // The type was found after the first bytes were held.
            container = reading.container
            caps = reading.caps
        }
        for (unit, offset) in reading.units {
            var position = offset
            actions += place(unit, offset: &position)
        }
        return actions
    }

    /// A track event from the host.
    public mutating func track(_ metadata: TrackMetadata) -> [Action] {
        guard metadata.sequence != latest?.sequence else { return [] }  // replayed or repeated
        latest = metadata
        latestIsFresh = true
        guard var segment = current else { return [] }  // the next segment takes `latest`
        // The connection's first title (the host announces the station on connect, the title once ICY data or
        // tags arrive) names the segment it started in rather than cutting a second-long untitled file off it.
        let untitledStart =
            segment.metadata?.title == nil && segment.metadata?.artist == nil && !segment.startedAtBoundary
            && segment.durationNanoseconds < Self.untitledGrace
        if segment.metadata == nil || currentTitleIsCarried || untitledStart {
            segment.metadata = metadata
            current = segment
            currentTitleIsCarried = false
            return [.rename(segment: segment.id, metadata: metadata)]
        }
        guard split else { return [.mark(segment: segment.id, metadata: metadata, nanoseconds: segment.durationNanoseconds)] }
        if aligning {
            aligner.mark(metadata)
            return []
        }
        pendingCut = (metadata, container == .ogg ? lastMonotonic + oggCutWait : lastMonotonic)
        return []
    }

    /// The recording ends (quit, disk full, destroy): the current segment is incomplete.
    public mutating func finish() -> [Action] {
        reader.finish()
        return flushAligner() + endCurrent(complete: false)
    }

    // MARK: -

    private mutating func place(_ unit: StreamUnit, offset: inout UInt64) -> [Action] {
        defer { latestIsFresh = false }
        var actions: [Action] = []
        let unitOffset = offset
        offset += UInt64(unit.receivedLength)
        if container == .ogg && unit.beginsLogicalStream, let page = OggPage(unit.bytes, at: 0),
            let codec = OggPageFramer.codec(unit.bytes[page.headerLength...])
        {
            chainCaps = codec.caps
        }
        if aligning {
            if current == nil {
                actions += begin(at: unitOffset, boundary: false, metadata: latest, carried: latest != nil && !latestIsFresh)
            }
            for step in aligner.push(unit, offset: unitOffset) { actions += perform(step) }
            return actions
        }
        if unit.beginsLogicalStream && chainHasAudio {
            // A new chain of a chained Ogg stream: the track boundary itself.
            codecHeaders = []
            chainHasAudio = false
            oggGranule = 0  // a new chain after audio of the previous one: it starts from its beginning
            if current != nil && split {
                actions += endCurrent(complete: true)
                actions += begin(at: unitOffset, boundary: true, metadata: pendingCut?.metadata, carried: false)
                pendingCut = nil
            }
        }
        if unit.isCodecHeader {
            codecHeaders.append(unit)
        } else {
            chainHasAudio = true
            if let cut = pendingCut, lastMonotonic >= cut.deadline, current != nil {
                // No new logical stream came (or the format has none): cut here, repeating the codec headers.
                actions += endCurrent(complete: true)
                actions += begin(at: unitOffset, boundary: true, metadata: cut.metadata, carried: false)
                pendingCut = nil
                for header in codecHeaders { actions += write(header.bytes, duration: 0) }
            }
        }
        if current == nil {
            // The first segment of a connection, or after a gap, starts mid-track.
            actions += begin(at: unitOffset, boundary: false, metadata: latest, carried: latest != nil && !latestIsFresh)
            if !unit.isCodecHeader {
                for header in codecHeaders { actions += write(header.bytes, duration: 0) }
            }
        }
        if let current, current.bytes + UInt64(unit.bytes.count) > maxSegmentBytes, !unit.isCodecHeader {
            // Too big for one file (WAV's 4 GiB): go on in a new one; neither part is a whole track.
            actions += endCurrent(complete: false)
            actions += begin(at: unitOffset, boundary: false, metadata: current.metadata, carried: current.metadata == nil)
            for header in codecHeaders { actions += write(header.bytes, duration: 0) }
        }
        actions += write(unit.bytes, duration: unit.durationNanoseconds)
        if container == .ogg && !unit.isCodecHeader, let page = OggPage(unit.bytes, at: 0), page.granule >= 0 {
            oggGranule = page.granule
        }
        return actions
    }

    private mutating func perform(_ step: CutAligner.Step) -> [Action] {
        switch step {
        case let .write(entry):
            var actions: [Action] = []
            if let current, current.bytes + UInt64(entry.unit.bytes.count) > maxSegmentBytes {
                let metadata = current.metadata
                actions += endCurrent(complete: false)
                actions += begin(at: entry.offset, boundary: false, metadata: metadata, carried: false)
            }
            return actions + write(entry.unit.bytes, duration: entry.unit.durationNanoseconds)
        case let .cut(metadata, offset):
            guard current != nil else { return begin(at: offset, boundary: false, metadata: metadata, carried: false) }
            return endCurrent(complete: true) + begin(at: offset, boundary: true, metadata: metadata, carried: false)
        }
    }

    /// Points the aligner at the decoded audio of the current connection (or at nothing after lost data,
    /// when the stream's time axis no longer matches the decoder's).
    private mutating func bindLoudness() {
        guard let loudness, timebaseValid else {
            aligner.externalLevel = nil
            aligner.externalCoverage = nil
            return
        }
        let connection = self.connection
        aligner.externalLevel = { loudness.level(connection: connection, from: $0, to: $1) }
        aligner.externalCoverage = { loudness.covered(connection: connection) }
    }

    /// Writes what the aligner holds (a gap or the end): pending cuts land at their title change.
    private mutating func flushAligner() -> [Action] {
        guard aligner.heldCount > 0 || aligning else { return [] }
        var actions: [Action] = []
        for step in aligner.flush() { actions += perform(step) }
        return actions
    }

    private mutating func begin(at offset: UInt64, boundary: Bool, metadata: TrackMetadata?, carried: Bool) -> [Action] {
        let segment = Segment(
            id: nextID, metadata: metadata, startedAtBoundary: boundary, container: container,
            caps: container == .ogg ? chainCaps ?? caps : caps,
            connection: connection, streamOffset: offset, startedMonotonic: lastMonotonic,
            granuleBase: container == .ogg ? oggGranule : nil)
        nextID += 1
        current = segment
        currentTitleIsCarried = carried
        return [.begin(segment)]
    }

    private mutating func write(_ bytes: [UInt8], duration: Int64) -> [Action] {
        guard var segment = current else { return [] }
        segment.bytes += UInt64(bytes.count)
        segment.durationNanoseconds += duration
        current = segment
        return [.write(segment: segment.id, bytes: bytes, nanoseconds: duration)]
    }

    private mutating func endCurrent(complete: Bool) -> [Action] {
        guard var segment = current else { return [] }
        current = nil
        segment.cutShort = !complete
        return [.end(segment, complete: complete && segment.startedAtBoundary)]
    }
}
