/// How fast one light connection may be read (issue 39, N2: a station flooding bytes at 3.1 MB/s, and
/// 48 MB/s once another station was connecting, filled the disk every station records to).
///
/// A token bucket: the connection may be read at `limit` bytes a second, with `depthSeconds` of it
/// saved up, so an Icecast burst to a new listener or a catch-up after a stall passes whole, and
/// only a station that keeps sending far faster than it says it does is held back. The limit is
/// `factor` × the rate the station declares (icy-br) or its first frame header gives, whichever
/// is higher, and never under `floorBytesPerSecond` (VBR streams and understated rates stay
/// clear of it); while nothing is known (before the codec is named, and always for Ogg and FLAC,
/// whose icy-br no frame header confirms: a lossless station understating it would be held) it is
/// `ceilingBytesPerSecond`.
///
/// Pure logic on monotonic nanoseconds; the driver thread owns it (LightStream).
package struct FloodGuard: Sendable {
    /// With nothing declared: 8 Mbit/s, above any radio stream (FLAC 24/96 stereo is ~4.6 Mbit/s).
    package static let ceilingBytesPerSecond = 1 << 20
    /// Never under 512 kbit/s, whatever is declared.
    package static let floorBytesPerSecond = 64 << 10
    package static let factor = 4
    package static let depthSeconds = 5

    /// Bytes a second this connection may be read at.
    package private(set) var limit: Int
    /// The rate the limit was derived from (bit/s), nil while nothing is declared.
    package private(set) var declaredBitsPerSecond: Int?
    private var tokens: Double
    private var refilled: Int64
    private let began: Int64
    private var total = 0
    private var reported = false

    package init(now: Int64) {
        limit = Self.ceilingBytesPerSecond
        tokens = Double(Self.ceilingBytesPerSecond * Self.depthSeconds)
        refilled = now
        began = now
    }

    /// The station's rate is known (bit/s; nil or 0: not declared).
    package mutating func declare(bitsPerSecond: Int?) {
        guard let bits = bitsPerSecond, bits > 0 else { return }
        declaredBitsPerSecond = bits
        limit = min(max(bits / 8 * Self.factor, Self.floorBytesPerSecond), Self.ceilingBytesPerSecond)
        tokens = min(tokens, Double(limit * Self.depthSeconds))
    }

    package enum Admission: Equatable, Sendable {
        /// Read these bytes.
        case read
        /// Hold the connection until `mayResume`; `firstTime`: it was never held before (say so, once).
        case hold(firstTime: Bool)
    }

    /// `count` bytes have arrived: read them now, or hold the connection (they are handed over again).
    package mutating func admit(_ count: Int, now: Int64) -> Admission {
        refill(now)
        guard tokens > 0 else {
            let first = !reported
            reported = true
            return .hold(firstTime: first)
        }
        tokens -= Double(count)
        total += count
        return .read
    }

    /// Whether a held connection may be read again.
    package mutating func mayResume(now: Int64) -> Bool {
        refill(now)
        return tokens > 0
    }

    /// Bytes a second read on average since the connection began.
    package func averageBytesPerSecond(now: Int64) -> Int {
        let seconds = Double(max(now - began, 1)) / 1e9
        return Int(Double(total) / seconds)
    }

    private mutating func refill(_ now: Int64) {
        let elapsed = Double(max(now - refilled, 0)) / 1e9
        refilled = now
        tokens = min(tokens + elapsed * Double(limit), Double(limit * Self.depthSeconds))
    }
}
