/// The sound waiting for snapserver: whole buffers of the PCM tap, oldest first, never more than
/// `capacity` bytes. When a new buffer does not fit, the oldest are dropped to make room (live
/// sound: what is late is worth less than what is new); a buffer larger than the whole capacity
/// is dropped itself. Buffers are kept whole, so what is sent stays frame-aligned. Every dropped
/// byte is counted.
///
/// Threading: a value type; its owner keeps it behind a lock.
public struct AudioBacklog: Sendable {
    public let capacity: Int
    private var chunks: [[UInt8]] = []
    private var head = 0
    public private(set) var byteCount = 0
    public private(set) var droppedBytes: UInt64 = 0
    public private(set) var droppedBuffers: UInt64 = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    public var isEmpty: Bool { head == chunks.count }

    /// Keeps `chunk`, dropping the oldest buffers it needs room for.
    public mutating func append(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        guard chunk.count <= capacity else {
            countDropped(chunk.count)
            return
        }
        while byteCount + chunk.count > capacity, let oldest = popFirst() {
            countDropped(oldest.count)
        }
        chunks.append(chunk)
        byteCount += chunk.count
    }

    /// The oldest buffer, removed.
    public mutating func popFirst() -> [UInt8]? {
        guard head < chunks.count else { return nil }
        let chunk = chunks[head]
        chunks[head] = []
        head += 1
        byteCount -= chunk.count
        if head > 64, head * 2 > chunks.count {  // compact now and then, never per buffer
            chunks.removeFirst(head)
            head = 0
        }
        return chunk
    }

    /// Drops everything kept (snapserver went away), counted.
    public mutating func dropAll() {
        while let chunk = popFirst() { countDropped(chunk.count) }
        chunks.removeAll()
        head = 0
    }

    /// Counts bytes the owner dropped itself (a buffer half sent when the connection broke, or one
    /// that arrived while no snapserver was connected).
    public mutating func countDropped(_ bytes: Int) {
        guard bytes > 0 else { return }
        droppedBytes += UInt64(bytes)
        droppedBuffers += 1
    }
}
