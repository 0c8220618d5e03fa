import OtonHeapGauge

/// The figures of the validator's leak check: the instance first gets a warm-up storm (caches,
/// first allocations, SQLite's page cache), then the heap in use (glibc mallinfo2, every thread,
/// the host's own allocations included) is read before and after a storm of `stormEvents` events.
/// Growth of more than `bytesPerEvent` per delivered event fails: 4 MiB over 4,000 events.
/// The host frees each event once every plugin got it, so its share is noise of a few KiB.
package enum LeakCheck {
    package static let warmUpEvents = 1_000
    package static let stormEvents = 4_000
    package static let bytesPerEvent = 1024

    package static func allowedGrowth(events: Int) -> Int { events * bytesPerEvent }

    package static func heapInUse() -> Int { Int(oton_heap_in_use()) }

    package static func shown(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes / (1 << 20)) MiB" : bytes >= 1024 ? "\(bytes / 1024) KiB" : "\(bytes) bytes"
    }
}
