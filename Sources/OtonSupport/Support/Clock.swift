#if canImport(Glibc)
    import Glibc
#endif

/// The two clocks every event carries: monotonic for ordering and durations,
/// wall time for people and logs.
public enum Clock {
    /// CLOCK_MONOTONIC in nanoseconds.
    @inline(__always)
    public static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Unix time in microseconds.
    @inline(__always)
    public static func wallMicroseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1_000
    }
}
