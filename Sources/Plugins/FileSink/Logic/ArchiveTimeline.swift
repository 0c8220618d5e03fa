/// When each frame of a connection was on the air, on the wall clock. The light engine reads once a
/// tick, so a buffer's arrival says only that its last frame came before then; the frames' own
/// durations are exact. So a frame's time is an anchor plus the audio before it in the connection,
/// and the anchor is the smallest `arrival − audio up to the buffer's end` seen: the buffer whose
/// last byte came just before it was read. (A server's burst at connect is audio from before the
/// start, and so is dated before it.) The anchor moves down at once when a buffer shows it was too
/// late; it moves up when the audio falls behind the clock and stays behind for `confirmation` (the
/// server stalled and the audio it did not send is missing: a gap), and slowly, once per `epoch`,
/// when the server's clock runs slower than ours. Pure: arrivals are given.
public struct ArchiveTimeline: Sendable {
    /// Audio this much behind the clock, for `confirmation`, is a stall.
    public var stallThreshold: Int64 = 1_000_000_000
    public var confirmation: Int64 = 1_000_000_000
    public var epoch: Int64 = 60_000_000_000

    public private(set) var anchor: Int64?
    /// Audio of this connection placed so far.
    public private(set) var elapsed: Int64 = 0
    private var behindSince: Int64?
    private var behindMinimum: Int64 = 0
    private var behindAtElapsed: Int64 = 0
    private var epochStart: Int64 = 0
    private var epochMinimum: Int64 = .max

    /// A stall the timeline confirmed: `seconds` of wall time with no audio, from `at`.
    public struct Stall: Equatable, Sendable {
        public var at: Int64
        public var nanoseconds: Int64
    }

    public init() {}

    /// A new connection (or lost data): the next buffer sets the anchor afresh.
    public mutating func restart() {
        anchor = nil
        elapsed = 0
        behindSince = nil
        epochMinimum = .max
    }

    /// A buffer whose units hold `audio` nanoseconds arrived at `arrival`. Call before placing them.
    public mutating func observe(arrival: Int64, audio: Int64) -> Stall? {
        let lag = arrival - (elapsed + audio)
        guard let current = anchor else {
            anchor = lag
            epochStart = arrival
            epochMinimum = lag
            return nil
        }
        epochMinimum = min(epochMinimum, lag)
        if lag < current {
            anchor = lag
            behindSince = nil
        } else if lag > current + stallThreshold {
            if behindSince == nil {
                behindSince = arrival
                behindMinimum = lag
                behindAtElapsed = elapsed
            } else {
                behindMinimum = min(behindMinimum, lag)
            }
            if let since = behindSince, arrival - since >= confirmation {
                let stall = Stall(at: current + behindAtElapsed, nanoseconds: behindMinimum - current)
                anchor = behindMinimum
                behindSince = nil
                epochStart = arrival
                epochMinimum = lag
                return stall
            }
        } else {
            behindSince = nil
        }
        if arrival - epochStart >= epoch {
            // The server's clock is slower than ours: follow it (by less than the stall threshold).
            if epochMinimum > current && behindSince == nil { anchor = epochMinimum }
            epochStart = arrival
            epochMinimum = lag
        }
        return nil
    }

    /// The wall time of the audio `elapsed` nanoseconds into the connection.
    public func time(atElapsed position: Int64) -> Int64 { (anchor ?? 0) + position }

    /// The wall time of the next frame.
    public var now: Int64 { time(atElapsed: elapsed) }

    public mutating func advance(by nanoseconds: Int64) { elapsed += nanoseconds }
}
