#if canImport(Glibc)
    import Glibc
#endif

/// The wall clock (nanoseconds since 1970) at a CLOCK_MONOTONIC time the host stamped a buffer with.
enum WallClock {
    static func wall(atMonotonic monotonic: Int64) -> Int64 {
        var real = timespec()
        var mono = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        let realNow = Int64(real.tv_sec) * 1_000_000_000 + Int64(real.tv_nsec)
        let monoNow = Int64(mono.tv_sec) * 1_000_000_000 + Int64(mono.tv_nsec)
        return monotonic > 0 ? realNow - (monoNow - monotonic) : realNow
    }

    /// CLOCK_MONOTONIC now, in nanoseconds.
    static func monotonicNow() -> Int64 {
        var mono = timespec()
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return Int64(mono.tv_sec) * 1_000_000_000 + Int64(mono.tv_nsec)
    }
}
