import CChromaprint

/// Chromaprint's raw fingerprint of mono 16-bit sound: one 32-bit frame per 0.124 s. One context,
/// fed as sound arrives and finished at the end; not thread-safe (the plugin's mailbox owns it).
public final class Fingerprinter {
    /// The rate Chromaprint works at: sound already at it is not resampled again.
    public static let rate = 11025

    private let context: OpaquePointer
    public let rate: Int
    private var started = false

    public init(rate: Int = Fingerprinter.rate) {
        // chromaprint_new allocates a few KB; it fails only when memory does.
        context = chromaprint_new(Int32(CHROMAPRINT_ALGORITHM_DEFAULT.rawValue))!
        self.rate = rate
    }

    deinit { chromaprint_free(context) }

    /// Starts a new fingerprint (forgets what was fed before).
    public func start() {
        started = chromaprint_start(context, Int32(rate), 1) == 1
    }

    public func feed(_ samples: UnsafeBufferPointer<Int16>) {
        guard started, let base = samples.baseAddress, !samples.isEmpty else { return }
        _ = chromaprint_feed(context, base, Int32(samples.count))
    }

    /// The fingerprint of what was fed since start(); empty when too little was.
    public func finish() -> [UInt32] {
        guard started else { return [] }
        started = false
        guard chromaprint_finish(context) == 1 else { return [] }
        var raw: UnsafeMutablePointer<UInt32>?
        var size: Int32 = 0
        guard chromaprint_get_raw_fingerprint(context, &raw, &size) == 1, let raw else { return [] }
        defer { chromaprint_dealloc(raw) }
        return Array(UnsafeBufferPointer(start: raw, count: Int(size)))
    }

    /// The fingerprint of `samples` in one go.
    public func fingerprint(_ samples: [Int16]) -> [UInt32] {
        start()
        samples.withUnsafeBufferPointer { feed($0) }
        return finish()
    }
}
