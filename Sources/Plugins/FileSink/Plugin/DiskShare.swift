import FileSinkLogic
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One recorder's place in the process's ``DiskShareLedger`` (issue 39, N2): it counts what the
/// recorder writes, says when to look at free space, and why the recorder stops (below the floor,
/// or near it when it is the one writing the most). Leaves the ledger when the recorder stops or
/// goes away.
final class DiskShare: @unchecked Sendable {  // `lock` guards the statics; the rest is the recorder's thread's
    nonisolated(unsafe) private static var ledger = DiskShareLedger()
    private static let lock = NSLock()
    nonisolated(unsafe) private static var nextID: UInt64 = 0

    private let id: UInt64

    init(directory: String) {
        var info = stat()
        let device = stat(directory, &info) == 0 ? UInt64(info.st_dev) : 0
        Self.lock.lock()
        Self.nextID += 1
        id = Self.nextID
        Self.ledger.join(id, device: device, now: Self.now)
        Self.lock.unlock()
    }

    deinit { leave() }

    /// Bytes written since free space was last looked at (the recorder's thread only).
    private var sinceCheck: UInt64 = .max

    /// `bytes` are being written; true when free space is to be looked at (at the first write, then every 256 KiB).
    func wrote(_ bytes: Int) -> Bool {
        Self.lock.lock()
        Self.ledger.wrote(id, bytes: bytes, now: Self.now)
        Self.lock.unlock()
        sinceCheck = sinceCheck == .max ? .max : sinceCheck + UInt64(bytes)
        guard sinceCheck >= 256 << 10 else { return false }
        sinceCheck = 0
        return true
    }

    func offence() -> DiskShareLedger.Offence? {
        Self.lock.lock(); defer { Self.lock.unlock() }
        return Self.ledger.offence(id, now: Self.now)
    }

    func leave() {
        Self.lock.lock(); defer { Self.lock.unlock() }
        Self.ledger.leave(id)
    }

    private static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

extension DiskShare {
    /// Why this recorder stops now, or nil: below the floor every recorder stops; near it (below
    /// twice the floor) the one writing the most lately, when it is this one, stops first.
    func stopMessage(free: UInt64, adding count: Int, settings: FileSinkSettings, tr: (String, [String: String]) -> String) -> String? {
        let floor = settings.diskFloorBytes
        if free < floor + UInt64(count) {
            return tr(
                "recording stopped: only {free} MiB free in {folder}, below the floor of {floor} MiB (config.disk_floor_mb / --disk-floor)",
                ["free": "\(free / 1_048_576)", "folder": settings.directory, "floor": "\(floor / 1_048_576)"])
        }
        guard floor > 0, free < floor * 2 + UInt64(count), let offence = offence() else { return nil }
        return tr(
            "recording stopped first to leave room for the other stations: {folder} wrote {recent} MiB in the last {seconds} s, more than twice any other of the {count} stations on this disk ({next} MiB at most), and only {free} MiB are free (the floor is {floor} MiB); the other stations keep recording. Free space, or record this station on a disk of its own (--out, --disk-floor)",
            [
                "folder": settings.directory, "recent": String(format: "%.1f", Double(offence.recent) / 1_048_576),
                "seconds": String(DiskShareLedger.windowNanoseconds / 1_000_000_000), "count": String(offence.writers),
                "next": String(format: "%.1f", Double(offence.nextMost) / 1_048_576), "free": String(free / 1_048_576),
                "floor": String(floor / 1_048_576),
            ])
    }
}
