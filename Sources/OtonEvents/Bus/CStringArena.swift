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
            // One copy of the string's UTF-8 (contiguous after withUTF8), not a loop over its bytes:
            // an event with a thousand fields is a thousand strings. A NUL inside a Swift string
            // would cut the C string short; it never reaches here from the host, and plugin input
            // was already read as a C string.
            var text = string
            let count = text.withUTF8 { bytes -> Int in
                if let source = bytes.baseAddress {
                    UnsafeMutableRawPointer(buffer + offset).copyMemory(from: source, byteCount: bytes.count)
                }
                return bytes.count
            }
            buffer[offset + count] = 0
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
