/// Where a query's lookup keys occur in the index: song and frame position.
public struct IndexHit: Sendable, Hashable {
    public var song: Int64
    public var position: Int

    public init(song: Int64, position: Int) {
        self.song = song
        self.position = position
    }
}

/// What the matcher reads from an index (the SQLite one, or a dictionary in unit tests).
public protocol FingerprintSource {
    /// For each lookup key asked, where it occurs (at most `limit` places per key).
    func hits(for keys: Set<UInt32>, limit: Int) throws -> [UInt32: [IndexHit]]
    /// The stored frames of a song, nil when it is gone.
    func frames(of song: Int64) throws -> [UInt32]?
}

/// A recognised song: which, where in it the query sits, and how close it is.
public struct FingerprintMatch: Sendable, Equatable {
    public var song: Int64
    /// The stored frame the query's first frame lines up with.
    public var offset: Int
    /// Bits that differ over the frames compared, 0 (identical) to 1; unrelated sound sits near 0.4–0.5.
    public var bitErrorRate: Double
    /// Query frames whose lookup key voted for this alignment.
    public var votes: Int
}

/// Matches a Chromaprint raw fingerprint (one 32-bit value per 0.124 s) against an index.
///
/// Two steps, as AcoustID's index does: each query frame's top 20 bits are a lookup key; a
/// (song, offset) that enough keys vote for is a candidate; a candidate is accepted only when the
/// full 32-bit frames at that alignment differ in few bits. The thresholds come from the tests
/// (RecognitionMatcherTests, RecognitionCorpusTests): the same melody re-encoded in another codec
/// and bitrate votes 10–30 and differs in 4–6 % of bits; 50 unrelated melodies in the same scales
/// vote at most 2 and, even at the best of all alignments, differ in more than 20 % of bits.
public struct FingerprintMatcher: Sendable {
    /// Bits a frame keeps as its lookup key (the top ones).
    public static let keyBits: UInt32 = 20
    /// Votes (over an offset and its two neighbours) a candidate needs.
    public var minimumVotes = 5
    /// The highest bit error rate accepted.
    public var maximumBitErrorRate = 0.15
    /// Candidates verified per query, best voted first.
    public var candidates = 8
    /// Places per key read from the index: a key that occurs everywhere (silence) says nothing.
    public var hitsPerKey = 64

    public init() {}

    public static func key(_ frame: UInt32) -> UInt32 { frame >> (32 - keyBits) }

    /// The best match for `query`, or nil when nothing in `source` is close enough.
    public func match(_ query: [UInt32], in source: FingerprintSource) throws -> FingerprintMatch? {
        guard query.count >= 16 else { return nil }
        let keys = Set(query.map(Self.key))
        let hits = try source.hits(for: keys, limit: hitsPerKey)
        var votes: [AlignmentKey: Int] = [:]
        for (index, frame) in query.enumerated() {
            for hit in hits[Self.key(frame)] ?? [] { votes[AlignmentKey(song: hit.song, offset: hit.position - index), default: 0] += 1 }
        }
        // An offset's votes with its neighbours': a fraction of a frame between the two copies splits them.
        let smoothed = votes.keys.map { key in
            (key, (-1...1).reduce(0) { $0 + (votes[AlignmentKey(song: key.song, offset: key.offset + $1)] ?? 0) })
        }
        let ranked = smoothed.filter { $0.1 >= minimumVotes }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        var best: FingerprintMatch?
        for (key, count) in ranked.prefix(candidates) {
            guard let stored = try source.frames(of: key.song) else { continue }
            for shift in -1...1 {
                guard let rate = Self.bitErrorRate(query, stored, offset: key.offset + shift), rate <= maximumBitErrorRate else { continue }
                if best.map({ rate < $0.bitErrorRate }) ?? true {
                    best = FingerprintMatch(song: key.song, offset: key.offset + shift, bitErrorRate: rate, votes: count)
                }
            }
        }
        return best
    }

    /// The share of differing bits where `query` overlaps `stored` shifted by `offset`; nil when
    /// they overlap in fewer than half the query's frames.
    public static func bitErrorRate(_ query: [UInt32], _ stored: [UInt32], offset: Int) -> Double? {
        let start = max(0, -offset)
        let end = min(query.count, stored.count - offset)
        guard end - start >= max(8, query.count / 2) else { return nil }
        var differing = 0
        for index in start..<end { differing += (query[index] ^ stored[index + offset]).nonzeroBitCount }
        return Double(differing) / Double((end - start) * 32)
    }

    private struct AlignmentKey: Hashable, Comparable {
        var song: Int64
        var offset: Int
        static func < (left: Self, right: Self) -> Bool { (left.song, left.offset) < (right.song, right.offset) }
    }
}
