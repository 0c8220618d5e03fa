import Foundation
import OtonHeapGauge

/// The figures of the validator's leak check. The instance first gets a warm-up (caches, first
/// allocations, SQLite's page cache), then the heap in use (glibc mallinfo2, every thread, the
/// host's own allocations included) is read before and after a storm of each thing the plugin
/// takes: events, media buffers at its taps, and commands. Growth beyond the allowance per item
/// fails. The host frees each item once the plugin got it, so its share is noise of a few KiB.
/// Around the whole check, from before create() to after destroy(), the process's open file
/// descriptors and threads are counted: what the plugin opened or started and left behind.
package enum LeakCheck {
    package static let warmUpEvents = 1_000
    package static let stormEvents = 4_000
    /// The bundled plugins keep at most ~100 bytes per event (History's SQLite cache); a plugin
    /// that keeps 512 bytes of every event fails.
    package static let bytesPerEvent = 256
    package static let warmUpBuffers = 200
    package static let stormBuffers = 2_000
    /// A plugin that keeps a part of every buffer (4 KiB of PCM is 23 ms) grows by far more.
    package static let bytesPerBuffer = 512
    package static let warmUpCommandRounds = 20
    package static let stormCommandRounds = 100
    package static let bytesPerCommand = 256
    /// Descriptors the host itself may open during a check (a log file, an eventfd).
    package static let spareDescriptors = 4
    /// Threads the host's libraries may start and keep during a check (besides the pools `threads()` leaves out).
    package static let spareThreads = 8

    package static func heapInUse() -> Int { Int(oton_heap_in_use()) }

    /// Open file descriptors of this process (/proc/self/fd).
    package static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

    /// Threads of this process (/proc/self/task) but the pools that grow on a loaded machine by
    /// themselves and shrink when idle, whoever queued the work: Dispatch's workers (named after
    /// their queue's quality of service, "…-qos", "…qos.overcommit") and the host's mailbox workers
    /// ("oton.mailboxes…", gone after 10 s idle). Under load a check saw 9 of them left after destroy().
    package static func threads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return !name.hasPrefix("oton.mailboxes") && !name.contains("qos")
        }.count
    }

    package static func shown(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes / (1 << 20)) MiB" : bytes >= 1024 ? "\(bytes / 1024) KiB" : "\(bytes) bytes"
    }
}
