import PluginAPI

/// Reads a struct a plugin filled, by the header's size rule: every struct starts with its
/// `struct_size`; one below the struct's ABI 1.0 size (`OTON_*_SIZE_1_0`) is malformed; one from
/// that size up is valid, and the fields it does not cover (appended by a later minor than the
/// plugin's) read as zero, never as the bytes that happen to follow it in the plugin's memory.
package enum ABIStructReader {
    /// The `struct_size` a struct declares (its first field).
    package static func declaredSize(_ pointer: UnsafeRawPointer) -> Int {
        Int(pointer.loadUnaligned(as: UInt32.self))
    }

    /// The struct at `pointer` as this host knows it, or nil when its struct_size is below `minimum`.
    package static func read<T>(_ pointer: UnsafePointer<T>, minimum: UInt32) -> T? {
        let size = declaredSize(pointer)
        guard size >= Int(minimum) else { return nil }
        return zeroExtended(UnsafeRawPointer(pointer), size: size, as: T.self)
    }

    /// The first `size` bytes at `pointer` (at most this host's struct), the rest zero.
    package static func zeroExtended<T>(_ pointer: UnsafeRawPointer, size: Int, as _: T.Type) -> T {
        let layout = MemoryLayout<T>.self
        let target = UnsafeMutableRawPointer.allocate(byteCount: layout.size, alignment: layout.alignment)
        defer { target.deallocate() }
        target.initializeMemory(as: UInt8.self, repeating: 0, count: layout.size)
        target.copyMemory(from: pointer, byteCount: min(max(size, 0), layout.size))
        return target.load(as: T.self)
    }
}
