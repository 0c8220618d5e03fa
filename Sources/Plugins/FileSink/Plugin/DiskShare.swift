import FileSinkLogic
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One recorder's place in the process's ``DiskShareLedger`` (issue 39, N2): it counts what the
/// recorder writes and says when the recorder is the one to stop first as free space nears the
/// floor. Leaves the ledger when the recorder stops or goes away.
final class DiskShare: @unchecked Sendable { // `lock` guards `ledger`
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

    func wrote(_ bytes: Int) {
        Self.lock.lock(); defer { Self.lock.unlock() }
        Self.ledger.wrote(id, bytes: bytes, now: Self.now)
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
    /// Free space is "near" the floor below twice the floor: the zone where the most recent writer stops first.
    static func isNearFloor(free: UInt64, floor: UInt64, adding count: Int) -> Bool {
        floor > 0 && free < floor * 2 + UInt64(count)
    }

    /// Why this recorder stops first, what the others do, and what to do about it.
    static func stopMessage(_ offence: DiskShareLedger.Offence, free: UInt64, settings: FileSinkSettings,
                            tr: (String, [String: String]) -> String) -> String {
        tr("recording stopped first to leave room for the other stations: {folder} wrote {recent} MiB in the last {seconds} s, more than twice any other of the {count} stations on this disk ({next} MiB at most), and only {free} MiB are free (the floor is {floor} MiB); the other stations keep recording. Free space, or record this station on a disk of its own (--output, --disk-floor)",
           ["folder": settings.directory, "recent": String(format: "%.1f", Double(offence.recent) / 1_048_576),
            "seconds": String(DiskShareLedger.windowNanoseconds / 1_000_000_000), "count": String(offence.writers),
            "next": String(format: "%.1f", Double(offence.nextMost) / 1_048_576), "free": String(free / 1_048_576),
            "floor": String(settings.diskFloorBytes / 1_048_576)])
    }
}
