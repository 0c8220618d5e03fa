/// Who has written how much lately, per filesystem, among the recorders of one process (issue 39,
/// N2: one station filled the disk and every station stopped at the floor together). When free
/// space nears the floor, the recorder that wrote the most in the last window stops first, if it
/// wrote more than `outlierFactor` × any other on the same filesystem; the others keep recording
/// until the floor itself. Recorders writing alike are never singled out.
///
/// Pure logic on monotonic nanoseconds; ``DiskShare`` keeps the process's one ledger under a lock.
public struct DiskShareLedger: Sendable {
    /// Writes count for this long (two halves: the current one and the one before).
    public static let windowNanoseconds: Int64 = 30_000_000_000
    public static let outlierFactor: UInt64 = 2

    private struct Writer: Sendable {
        var device: UInt64
        var current: UInt64 = 0
        var previous: UInt64 = 0
        var halfStarted: Int64
    }

    private var writers: [UInt64: Writer] = [:]

    public init() {}

    public mutating func join(_ id: UInt64, device: UInt64, now: Int64) {
        writers[id] = Writer(device: device, halfStarted: now)
    }

    public mutating func leave(_ id: UInt64) {
        writers[id] = nil
    }

    public mutating func wrote(_ id: UInt64, bytes: Int, now: Int64) {
        guard var writer = writers[id] else { return }
        Self.age(&writer, now: now)
        writer.current += UInt64(bytes)
        writers[id] = writer
    }

    public struct Offence: Equatable, Sendable {
        /// Bytes this recorder wrote in the window.
        public var recent: UInt64
        /// The most any other recorder on the filesystem wrote in it.
        public var nextMost: UInt64
        /// Recorders on the filesystem, this one included.
        public var writers: Int

        public init(recent: UInt64, nextMost: UInt64, writers: Int) {
            self.recent = recent
            self.nextMost = nextMost
            self.writers = writers
        }
    }

    /// This recorder's offence when it is the one to stop first; nil when it is not (alone on its
    /// filesystem, or not writing more than twice anyone else).
    public mutating func offence(_ id: UInt64, now: Int64) -> Offence? {
        guard let mine = writers[id] else { return nil }
        var neighbours: [UInt64] = []
        for (key, var writer) in writers where writer.device == mine.device {
            Self.age(&writer, now: now)
            writers[key] = writer
            if key != id { neighbours.append(writer.current + writer.previous) }
        }
        guard let aged = writers[id], let nextMost = neighbours.max() else { return nil }
        let recent = aged.current + aged.previous
        guard recent > nextMost * Self.outlierFactor else { return nil }
        return Offence(recent: recent, nextMost: nextMost, writers: neighbours.count + 1)
    }

    private static func age(_ writer: inout Writer, now: Int64) {
        let half = windowNanoseconds / 2
        let elapsed = now - writer.halfStarted
        guard elapsed >= half else { return }
        writer.previous = elapsed >= 2 * half ? 0 : writer.current
        writer.current = 0
        writer.halfStarted = now
    }
}
