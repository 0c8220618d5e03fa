import OtonSupport

/// `--shard I/N`: which stations this recorder keeps, by rendezvous (highest random weight)
/// hashing of each station's URL, so N recorders that share nothing cover every station exactly
/// once, and going from N to N + 1 shards moves only the stations the new shard wins (about 1/(N+1)).
public struct ShardSelection: Equatable, Sendable {
    /// 1-based, as a person counts (a StatefulSet's ordinal 0 is shard 1).
    public let index: Int
    public let count: Int

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// "2/5": shard 2 of 5.
    public init(_ text: String) throws(Invalid) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), (1...100_000).contains(count), (1...count).contains(index) else {
            throw Invalid(description: tr("--shard {value}: use I/N with 1 ≤ I ≤ N, e.g. 1/3 (this recorder is shard I of N)", ["value": text]))
        }
        self.index = index
        self.count = count
    }

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Whether this shard records the station at `url`.
    public func keeps(_ url: String) -> Bool {
        Self.owner(of: url, shards: count) == index
    }

    /// The shard (1 … shards) whose weight for `url` is highest. The URL is hashed once; each shard
    /// only mixes its number in (issue 39, N17: hashing the URL again per shard made `--shard 1/100000`
    /// over 10,000 stations cost 50 s of CPU).
    public static func owner(of url: String, shards: Int) -> Int {
        let hash = urlHash(url)
        var best = 1
        var bestWeight: UInt64 = 0
        for shard in 1...max(shards, 1) {
            let weight = weight(hash: hash, shard)
            if shard == 1 || weight > bestWeight {
                best = shard
                bestWeight = weight
            }
        }
        return best
    }

    /// FNV-1a over the URL, then for each shard its number mixed in and a 64-bit finaliser
    /// (splitmix), so that neighbouring shard numbers give unrelated weights. Stable across runs and machines.
    package static func weight(_ url: String, _ shard: Int) -> UInt64 {
        weight(hash: urlHash(url), shard)
    }

    private static func urlHash(_ url: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func weight(hash: UInt64, _ shard: Int) -> UInt64 {
        var value = hash ^ (UInt64(shard) &* 0x9E37_79B9_7F4A_7C15)
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
