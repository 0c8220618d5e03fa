/// Which finished archive segments go: those older than `maxAge` (by their end), then the oldest
/// while everything kept, the segment being written included, is over `maxBytes`. The segment
/// being written is never in `finished`, so it never goes. Pure: the caller lists and deletes.
public struct ArchiveRetention: Equatable, Sendable {
    public var maxAgeNanoseconds: Int64?
    public var maxBytes: UInt64?
    /// Below the free-space floor, remove the oldest finished segment instead of stopping (`keep_when_full`: "oldest").
    public var removeOldestWhenFull = false

    public struct Entry: Equatable, Sendable {
        /// The segment's file, relative to the output folder; its ledger is beside it.
        public var path: String
        public var start: Int64
        public var end: Int64
        /// The segment and its ledger.
        public var bytes: UInt64

        public init(path: String, start: Int64, end: Int64, bytes: UInt64) {
            self.path = path
            self.start = start
            self.end = end
            self.bytes = bytes
        }
    }

    public init(maxAgeNanoseconds: Int64? = nil, maxBytes: UInt64? = nil) {
        self.maxAgeNanoseconds = maxAgeNanoseconds
        self.maxBytes = maxBytes
    }

    public var isActive: Bool { maxAgeNanoseconds != nil || maxBytes != nil || removeOldestWhenFull }

    /// Below the free-space floor: the oldest finished segment, the one to remove instead of stopping (nil: stop).
    public func oldestToFreeSpace(_ finished: [Entry]) -> Entry? {
        guard removeOldestWhenFull else { return nil }
        return finished.min { ($0.start, $0.path) < ($1.start, $1.path) }
    }

    /// The entries to delete, oldest first. `finished` in any order; `writingBytes` is the open segment's size.
    public func expired(_ finished: [Entry], now: Int64, writingBytes: UInt64) -> [Entry] {
        let oldestFirst = finished.sorted { ($0.start, $0.path) < ($1.start, $1.path) }
        var doomed: [Entry] = []
        var kept: [Entry] = []
        for entry in oldestFirst {
            if let age = maxAgeNanoseconds, entry.end < now - age { doomed.append(entry) } else { kept.append(entry) }
        }
        if let maxBytes {
            var total = kept.reduce(writingBytes) { $0 + $1.bytes }
            var index = 0
            while total > maxBytes && index < kept.count {
                total -= kept[index].bytes
                doomed.append(kept[index])
                index += 1
            }
        }
        return doomed
    }
}
