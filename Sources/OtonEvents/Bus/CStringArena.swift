#if canImport(Glibc)
import Glibc
#endif

/// Packs many NUL-terminated C strings into one allocation, so that turning
/// an event into its C form costs a handful of mallocs instead of one per
/// string. Pointers stay valid until the arena is freed.
package struct CStringArena {
    package private(set) var base: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    private var used = 0
    private var pending: [(String, Int)] = []

    package init() {}

    /// Reserves space for `string` and returns its offset; resolve with `pointer(at:)` after `seal()`.
    package mutating func add(_ string: String) -> Int {
        let offset = used
        used += string.utf8.count + 1
        pending.append((string, offset))
        return offset
    }

    package mutating func seal() {
        capacity = max(used, 1)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        for (string, offset) in pending {
            var cursor = offset
            for byte in string.utf8 {
                // A NUL inside a Swift string would cut the C string short; it never reaches here
                // from the host, and plugin input was already read as a C string.
                buffer[cursor] = CChar(bitPattern: byte)
                cursor += 1
            }
            buffer[cursor] = 0
        }
        pending.removeAll()
        base = buffer
    }

    package func pointer(at offset: Int?) -> UnsafePointer<CChar>? {
        guard let offset, let base else { return nil }
        return UnsafePointer(base + offset)
    }

    package func free() {
        base?.deallocate()
    }
}
