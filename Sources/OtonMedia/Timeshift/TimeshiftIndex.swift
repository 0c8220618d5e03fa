/// What a timeshift ring holds, without its bytes (docs/timeshift.md): the chunks on disk, when each
/// stretch of bytes was received, the titles and the gaps, all by ring offset (every byte ever
/// written to this ring has its own offset, counted from 0, so an offset never means two bytes).
///
/// Pure: times are given (CLOCK_MONOTONIC nanoseconds in use, anything monotonic in tests), so the
/// bounds and the lookups are unit-tested without files or a clock. Bounded: ``prune(now:)`` drops
/// whole chunks older than ``maxAge`` or beyond ``maxBytes``, and with them every note they carry,
/// so its memory is bounded by the ring's length.
package struct TimeshiftIndex: Sendable {
    package struct Chunk: Equatable, Sendable {
        /// The chunk's number (its file's name).
        package var number: Int
        package var start: UInt64
        package var length: UInt64
        package var end: UInt64 { start + length }
    }

    /// When the byte at `offset` was received.
    package struct TimePoint: Equatable, Sendable {
        package var offset: UInt64
        package var nanoseconds: Int64
    }

    /// Something that happened at an offset: a title (its tags) or a gap (a new connection).
    package enum Note: Equatable, Sendable {
        case tags(TagSet)
        case gap
    }

    package struct Mark: Equatable, Sendable {
        package var offset: UInt64
        package var note: Note
    }

    package let chunkBytes: UInt64
    package let maxBytes: UInt64
    package let maxAge: Int64
    /// A time point at most this often (ns): ~4 a second, so 30 min cost ~7,200 of them.
    package static let timePointSpacing: Int64 = 250_000_000

    package private(set) var chunks: [Chunk] = []
    package private(set) var timePoints: [TimePoint] = []
    package private(set) var marks: [Mark] = []
    /// The offset the next byte gets.
    package private(set) var head: UInt64 = 0
    private var nextChunkNumber = 0

    package init(chunkBytes: UInt64, maxBytes: UInt64, maxAgeNanoseconds: Int64) {
        self.chunkBytes = max(1, chunkBytes)
        self.maxBytes = max(maxBytes, self.chunkBytes * 2)
        maxAge = maxAgeNanoseconds
    }

    /// The oldest offset still held (== head when empty).
    package var start: UInt64 { chunks.first?.start ?? head }
    package var heldBytes: UInt64 { head - start }
    /// When the newest byte was received (nil: nothing yet).
    package var headTime: Int64? { timePoints.last?.nanoseconds }

    /// Where `count` bytes received at `now` go: pieces of (chunk number, offset in it, length) —
    /// more than one when they cross into a new chunk. Records them (the caller writes the bytes).
    package mutating func append(_ count: Int, at now: Int64) -> [(chunk: Int, offsetInChunk: UInt64, length: Int)] {
        var pieces: [(chunk: Int, offsetInChunk: UInt64, length: Int)] = []
        var left = UInt64(max(0, count))
        if left > 0, timePoints.last.map({ now - $0.nanoseconds >= Self.timePointSpacing }) ?? true {
            timePoints.append(TimePoint(offset: head, nanoseconds: now))
        }
        while left > 0 {
            if chunks.last.map({ $0.length >= chunkBytes }) ?? true {
                chunks.append(Chunk(number: nextChunkNumber, start: head, length: 0))
                nextChunkNumber += 1
            }
            let last = chunks.count - 1
            let room = chunkBytes - chunks[last].length
            let piece = min(room, left)
            pieces.append((chunks[last].number, chunks[last].length, Int(piece)))
            chunks[last].length += piece
            head += piece
            left -= piece
        }
        return pieces
    }

    /// A title (or gap) at the head: it is heard once playback passes this offset.
    package mutating func note(_ note: Note) {
        // Connections that received nothing (a mount answering 404 while the player waits for it) make
        // one gap, not one each.
        if note == .gap, marks.last == Mark(offset: head, note: .gap) { return }
        // Tags at the offset of the last tags (an Ogg song's title right after the headers' codec and
        // name, before any byte): one mark with both, else the codec was never heard.
        if case let .tags(tags) = note, let last = marks.last, last.offset == head, case let .tags(earlier) = last.note {
            marks[marks.count - 1] = Mark(offset: head, note: .tags(tags.filling(from: earlier)))
            return
        }
        marks.append(Mark(offset: head, note: note))
    }

    /// A title at an earlier offset (at most the head), after the marks already there: heard from there.
    package mutating func note(_ note: Note, at offset: UInt64) {
        let at = min(offset, head)
        let index = marks.lastIndex { $0.offset <= at }.map { $0 + 1 } ?? 0
        // Tags noted there already came later in the stream (a title after the headers): they keep
        // their words and take what these add.
        if case let .tags(tags) = note, index > 0, marks[index - 1].offset == at, case let .tags(later) = marks[index - 1].note {
            marks[index - 1] = Mark(offset: at, note: .tags(later.filling(from: tags)))
            return
        }
        marks.insert(Mark(offset: at, note: note), at: index)
    }

    /// Drops the oldest chunks while the ring is older than ``maxAge`` or larger than ``maxBytes``
    /// (the newest chunk, being written, always stays). Returns the numbers of the chunks dropped.
    package mutating func prune(now: Int64) -> [Int] {
        var dropped: [Int] = []
        while chunks.count > 1 {
            let first = chunks[0]
            let tooBig = heldBytes > maxBytes
            let tooOld = time(at: first.end).map { now - $0 > maxAge } ?? false
            guard tooBig || tooOld else { break }
            chunks.removeFirst()
            dropped.append(first.number)
        }
        let start = self.start
        // The time point at or before the start stays: times inside the first chunk are read from it.
        let keep = (firstPoint(where: { $0.offset > start }) ?? timePoints.count) - 1
        if keep > 0 { timePoints.removeFirst(keep) }
        if let firstKept = marks.firstIndex(where: { $0.offset >= start }) {
            // The title playing at the start stays too (it is what is heard there).
            let lastBefore = marks[..<firstKept].lastIndex { if case .tags = $0.note { true } else { false } }
            marks.removeFirst(lastBefore ?? firstKept)
        } else if let lastTags = marks.lastIndex(where: { if case .tags = $0.note { true } else { false } }) {
            marks.removeFirst(lastTags)
        }
        return dropped
    }

    /// The chunk holding `offset`, and where in it.
    package func locate(_ offset: UInt64) -> (chunk: Chunk, offsetInChunk: UInt64)? {
        guard offset >= start, offset < head else { return nil }
        var low = 0, high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunks[middle].start <= offset { low = middle } else { high = middle - 1 }
        }
        return (chunks[low], offset - chunks[low].start)
    }

    /// The index of the first time point for which `isAfter` holds (they are in order), or nil.
    private func firstPoint(where isAfter: (TimePoint) -> Bool) -> Int? {
        var low = 0, high = timePoints.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(timePoints[middle]) { high = middle } else { low = middle + 1 }
        }
        return low < timePoints.count ? low : nil
    }

    /// When the byte at `offset` was received, interpolated between time points.
    package func time(at offset: UInt64) -> Int64? {
        guard let afterIndex = firstPoint(where: { $0.offset > offset }) else { return timePoints.last?.nanoseconds }
        guard afterIndex > 0 else { return timePoints[0].nanoseconds }
        let before = timePoints[afterIndex - 1], after = timePoints[afterIndex]
        let fraction = Double(offset - before.offset) / Double(after.offset - before.offset)
        return before.nanoseconds + Int64(Double(after.nanoseconds - before.nanoseconds) * fraction)
    }

    /// The offset of the byte received at `nanoseconds`, clamped to what is held.
    package func offset(at nanoseconds: Int64) -> UInt64 {
        let start = self.start
        guard let afterIndex = firstPoint(where: { $0.nanoseconds > nanoseconds }) else { return head }
        guard afterIndex > 0 else { return start }
        let before = timePoints[afterIndex - 1], after = timePoints[afterIndex]
        let fraction = Double(nanoseconds - before.nanoseconds) / Double(after.nanoseconds - before.nanoseconds)
        let offset = before.offset + UInt64(Double(after.offset - before.offset) * fraction)
        return min(max(offset, start), head)
    }

    /// The notes at offsets in `range` (in order).
    package func marks(in range: Range<UInt64>) -> [Mark] {
        marks.filter { range.contains($0.offset) }
    }

    /// The title heard at `offset`: the last tags noted at or before it.
    package func tags(at offset: UInt64) -> TagSet? {
        for mark in marks.reversed() where mark.offset <= offset { if case let .tags(tags) = mark.note { return tags } }
        return nil
    }
}
