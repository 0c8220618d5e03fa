/// MPRIS's picture of timeshift (docs/timeshift.md): the ring is the "track", its oldest audio at
/// position 0 and the live edge at its length, so `Position` is how far into the ring playback is
/// and `Seek`/`SetPosition` become `oton ctl seek ±…`. Built from the `status` command's
/// `timeshift_held_ms` and `behind_live_ms`; pure (times are given, CLOCK_MONOTONIC ns).
public struct TimeshiftTimeline: Equatable, Sendable {
    /// What the ring holds, and how far behind live playback was, when read (µs).
    public var heldMicroseconds: Int64
    public var behindMicroseconds: Int64
    /// The most the ring holds (its setting, µs).
    public var limitMicroseconds: Int64
    public var readAt: Int64
    /// Playing (the position moves on at 1 s/s) or not.
    public var playing: Bool

    public init(heldMilliseconds: Int64, behindMilliseconds: Int64, limitMilliseconds: Int64, readAt: Int64, playing: Bool) {
        heldMicroseconds = max(0, heldMilliseconds) * 1000
        behindMicroseconds = max(0, behindMilliseconds) * 1000
        limitMicroseconds = max(0, limitMilliseconds) * 1000
        self.readAt = readAt
        self.playing = playing
    }

    /// The position now (µs): at the ring's length while live. Since the reading, the ring has grown
    /// (up to its limit) and, unless playing, playback has fallen further behind.
    public func position(at now: Int64) -> Int64 {
        let elapsed = max(0, now - readAt) / 1000
        let held = min(heldMicroseconds + elapsed, max(limitMicroseconds, heldMicroseconds))
        return max(0, held - behindMicroseconds - (playing ? 0 : elapsed))
    }

    /// The `seek` argument that moves to `target` µs (SetPosition).
    public func seekArgument(toPosition target: Int64, at now: Int64) -> String {
        Self.seekArgument(byMicroseconds: target - position(at: now))
    }

    /// "-10.000s" / "+2.500s" for `oton ctl seek` (Seek's offset).
    public static func seekArgument(byMicroseconds offset: Int64) -> String {
        let milliseconds = offset / 1000
        let magnitude = abs(milliseconds)
        let fraction = String(magnitude % 1000)
        return (milliseconds < 0 ? "-" : "+") + String(magnitude / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "s"
    }
}
