/// The last `windowSeconds` of mono sound heard on a titleless station, and when the next look
/// is due: the first once the window is full, then every `intervalSeconds` of sound (the issue's
/// "12 s every 10 s"). Sound, not wall time: a paused or buffering stream is not looked at twice.
/// Memory is the window alone (12 s at 11025 Hz: 264 KB).
public struct ListeningWindow: Sendable {
    public static let windowSeconds = 12
    public static let intervalSeconds = 10

    public let rate: Int
    private var ring: [Int16]
    private var written = 0
    private var sinceLook = 0

    public init(rate: Int) {
        self.rate = rate
        ring = Array(repeating: 0, count: rate * Self.windowSeconds)
    }

    /// Seconds of sound held (up to the window).
    public var heldSeconds: Double { Double(min(written, ring.count)) / Double(rate) }

    /// Adds sound; true when a look is due now (take ``samples``).
    public mutating func append(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        let before = written
        for sample in samples {
            ring[written % ring.count] = sample
            written += 1
        }
        sinceLook += samples.count
        let filledNow = before < ring.count && written >= ring.count
        guard filledNow || (written >= ring.count && sinceLook >= rate * Self.intervalSeconds) else { return false }
        sinceLook = 0
        return true
    }

    /// The window's sound, oldest first.
    public var samples: [Int16] {
        guard written >= ring.count else { return Array(ring[0..<written]) }
        let start = written % ring.count
        return Array(ring[start...] + ring[..<start])
    }

    /// Forgets everything (another station, a new connection, a song with a title).
    public mutating func clear() {
        written = 0
        sinceLook = 0
    }
}
