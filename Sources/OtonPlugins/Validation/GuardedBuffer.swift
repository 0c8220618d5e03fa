import Foundation

/// Floats for the validator's calls of a plugin's filter, placed so that a write past the end
/// faults: the buffer ends where a page ends, and the page after it is PROT_NONE. The bytes from
/// the start of its first page to the buffer (64 at least) hold a pattern, looked at after each
/// call: a write before the start changes it. Mapped with mmap, so the heap gauge never counts it.
package final class GuardedBuffer {
    package let samples: UnsafeMutablePointer<Float>
    package let count: Int
    /// The PROT_NONE page right after the last sample.
    package let guardPage: UnsafeRawPointer
    package let pageSize: Int
    private let base: UnsafeMutableRawPointer
    private let mapped: Int
    private let lead: Int
    private static let pattern: UInt8 = 0xA5

    /// nil when the memory cannot be mapped.
    package init?(count: Int) {
        pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        let bytes = count * MemoryLayout<Float>.stride
        // At least 64 bytes of pattern before the buffer, even when it fills whole pages.
        let pages = (bytes + 64 + pageSize - 1) / pageSize
        mapped = (pages + 1) * pageSize
        guard let memory = mmap(nil, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), memory != MAP_FAILED else { return nil }
        base = memory
        guard mprotect(memory + pages * pageSize, pageSize, PROT_NONE) == 0 else {
            munmap(memory, mapped)
            return nil
        }
        lead = pages * pageSize - bytes
        memset(memory, Int32(Self.pattern), lead)
        samples = (memory + lead).bindMemory(to: Float.self, capacity: count)
        guardPage = UnsafeRawPointer(memory + pages * pageSize)
        self.count = count
    }

    deinit { munmap(base, mapped) }

    /// The pattern before the buffer is as it was: nothing wrote before its start.
    package var leadIntact: Bool {
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        for index in 0..<lead where bytes[index] != Self.pattern { return false }
        return true
    }
}
