import CGStreamer

/// Large buffers go back to the system when freed (issue 27.4).
///
/// souphttpsrc doubles its read size while a download keeps filling it, so an HLS segment with a
/// 30 MB ID3 tag arrives in buffers of up to a few MB. glibc serves the first of those with mmap,
/// but each free raises its mmap threshold to the freed size (up to 32 MB), after which such
/// buffers come from the heaps of the streaming threads' arenas and leave them fragmented: the
/// player grew by about 100 MB that way, although every buffer had been freed. A fixed threshold
/// keeps allocations of ``thresholdBytes`` and more on mmap (returned at once) and stops the
/// adjustment; smaller allocations are unaffected.
///
/// Called once, from GStreamer's initialisation (``GLibMainLoop``), before any pipeline runs.
package enum LargeBufferMemoryPolicy {
    package static let thresholdBytes: Int32 = 1024 * 1024

    package static func apply() {
        otgst_fix_mmap_threshold(thresholdBytes)
    }
}
