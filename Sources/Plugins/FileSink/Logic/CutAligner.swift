/// Moves a track cut in time: to the quietest moment near the title change
/// (streamripper's silence search) and with padding on either side. It is a
/// delay line: units are held back for `window + post` so that the audio
/// after a title change is known before the cut is chosen, and the last
/// `window + pre` of audio already written stays at hand to start the next
/// file earlier. Pure logic: fed units and title marks, answers with steps.
///
/// Only for units with exact durations (MPEG audio, ADTS, PCM). The silence
/// search needs loudness: PCM units carry theirs (`StreamUnit.level`); for
/// encoded units it comes from the decoded audio beside the stream
/// (`externalLevel`). Without it the cut stays at the title change and only
/// the padding applies.
public struct CutAligner {
    public struct Entry: Equatable, Sendable {
        public var unit: StreamUnit
        /// Byte offset of the unit in the connection's stream.
        public var offset: UInt64
        /// Start of the unit in stream time (ns since the aligner began).
        public var start: Int64
        public var end: Int64 { start + unit.durationNanoseconds }
    }

    public enum Step: Equatable, Sendable {
        /// Write the unit to the current file.
        case write(Entry)
        /// End the current file (a whole track) and begin the next at `offset` with this track.
        case cut(metadata: TrackMetadata, offset: UInt64)
    }

    /// Search ± this much around a title change for the quietest stretch (0: no search).
    public var window: Int64
    /// Start each file this much before its cut, end it this much after.
    public var pre: Int64
    public var post: Int64
    /// The stretch whose loudness is compared (streamripper compares short blocks too).
    public var stretch: Int64 = 100_000_000
    /// Loudness of [from, to) in stream time, for units that carry none (encoded audio): from the
    /// decoded audio beside the stream (LoudnessTimeline). Nil while unknown.
    public var externalLevel: ((Int64, Int64) -> Double?)?
    /// Up to where (stream time) externalLevel knows the audio. The decoded audio trails the
    /// stream by the decoder's buffer, so a cut waits for it, at most `maxLevelWait` longer.
    public var externalCoverage: (() -> Int64)?
    public var maxLevelWait: Int64 = 3_000_000_000

    private var entries: [Entry] = []
    /// entries[..<emitted] have been written.
    private var emitted = 0
    private var marks: [(time: Int64, metadata: TrackMetadata)] = []
    /// Stream time after the last unit.
    public private(set) var clock: Int64 = 0

    public init(window: Int64, pre: Int64, post: Int64) {
        self.window = max(window, 0)
        self.pre = max(pre, 0)
        self.post = max(post, 0)
    }

    public var isActive: Bool { window > 0 || pre > 0 || post > 0 }
    /// Units held back, not yet written.
    public var heldCount: Int { entries.count - emitted }

    /// A title change now: everything received so far belongs before it.
    public mutating func mark(_ metadata: TrackMetadata) {
        marks.append((clock, metadata))
    }

    /// One unit of the stream; answers with what can be decided now.
    public mutating func push(_ unit: StreamUnit, offset: UInt64) -> [Step] {
        entries.append(Entry(unit: unit, offset: offset, start: clock))
        clock += unit.durationNanoseconds
        var steps: [Step] = []
        while let mark = marks.first, clock >= mark.time + window + post, levelsReady(for: mark.time) {
            marks.removeFirst()
            steps += cut(near: mark.time, metadata: mark.metadata)
        }
        // Hold back what a future title change could still claim.
        let safe = marks.first.map { $0.time - window } ?? clock - window - post
        while emitted < entries.count && entries[emitted].end <= safe {
            steps.append(.write(entries[emitted]))
            emitted += 1
        }
        trimHistory()
        return steps
    }

    /// The end of the stream (a gap, the end of the recording): cuts still
    /// pending land at their title change, everything held is written.
    public mutating func flush() -> [Step] {
        var steps: [Step] = []
        for mark in marks {
            let index = entries[emitted...].firstIndex { $0.start >= mark.time } ?? entries.count
            steps += entries[emitted..<index].map(Step.write)
            emitted = index
            steps.append(
                .cut(
                    metadata: mark.metadata,
                    offset: index < entries.count ? entries[index].offset : (entries.last.map { $0.offset + UInt64($0.unit.bytes.count) } ?? 0)))
        }
        steps += entries[emitted...].map(Step.write)
        entries = []
        emitted = 0
        marks = []
        clock = 0  // what comes next (a new connection) starts its own time axis
        return steps
    }

    private func levelsReady(for time: Int64) -> Bool {
        guard window > 0, let coverage = externalCoverage else { return true }
        return coverage() >= time + window || clock >= time + window + post + maxLevelWait
    }

    private func level(_ entry: Entry) -> Double? {
        entry.unit.level ?? externalLevel?(entry.start, entry.end)
    }

    // MARK: -

    private mutating func cut(near time: Int64, metadata: TrackMetadata) -> [Step] {
        var index = quietestIndex(near: time)
        index = max(index, emitted)  // never before what the current file already has
        let cutTime = index < entries.count ? entries[index].start : clock
        let endIndex = entries[index...].firstIndex { $0.start >= cutTime + post } ?? entries.count
        var steps = entries[emitted..<endIndex].map(Step.write)
        let offset = index < entries.count ? entries[index].offset : (entries.last.map { $0.offset + UInt64($0.unit.bytes.count) } ?? 0)
        steps.append(.cut(metadata: metadata, offset: offset))
        let startIndex = entries.firstIndex { $0.end > cutTime - pre } ?? index
        steps += entries[min(startIndex, index)..<endIndex].map(Step.write)
        emitted = max(endIndex, emitted)
        return steps
    }

    /// The unit at the middle of the quietest `stretch` within ± window of `time`,
    /// or the first unit at or after `time` when loudness is unknown.
    private func quietestIndex(near time: Int64) -> Int {
        let atMark = entries.firstIndex { $0.start >= time } ?? entries.count
        guard window > 0 else { return atMark }
        let low = entries.firstIndex { $0.start >= time - window } ?? atMark
        let high = entries.lastIndex { $0.start <= time + window } ?? atMark
        guard low < high else { return atMark }
        let levels = entries[low...high].map(level)
        guard levels.allSatisfy({ $0 != nil }) else { return atMark }  // loudness unknown: cut at the title
        var best = atMark
        var bestLevel = Double.infinity
        var bestDistance = Int64.max
        var sum = 0.0
        var duration: Int64 = 0
        var first = low
        // A sliding stretch [first, last]; its middle is the candidate cut.
        for last in low...high {
            sum += levels[last - low]! * Double(entries[last].unit.durationNanoseconds)
            duration += entries[last].unit.durationNanoseconds
            while duration - entries[first].unit.durationNanoseconds >= stretch {
                sum -= levels[first - low]! * Double(entries[first].unit.durationNanoseconds)
                duration -= entries[first].unit.durationNanoseconds
                first += 1
            }
            guard duration >= stretch else { continue }
            let middle = (first + last + 1) / 2
            let level = sum / Double(max(duration, 1))
            let distance = abs(entries[middle].start - time)
            // Quieter wins; among equally quiet stretches (digital silence) the one nearest the title change.
            if level < bestLevel - 1e-9 || (abs(level - bestLevel) <= 1e-9 && distance < bestDistance) {
                best = middle
                bestLevel = level
                bestDistance = distance
            }
        }
        return best
    }

    /// Keeps `window + pre` (plus a stretch) of written audio for the next file's pre-padding.
    private mutating func trimHistory() {
        let keepFrom = (marks.first?.time ?? clock) - window - pre - stretch
        var drop = 0
        while drop < emitted && entries[drop].end < keepFrom { drop += 1 }
        if drop >= 64 {
            entries.removeFirst(drop)
            emitted -= drop
        }
    }
}
