import Foundation
import Synchronization

/// What a mailbox delivers to. Called on a pool worker (``MailboxPool``), never two calls at once,
/// one call at a time, in the order items were accepted.
public protocol MailboxConsumer: AnyObject, Sendable {
    func deliver(event: FrozenEvent)
    func deliver(media: MediaPacket, extraFlags: UInt32)
    /// The mailbox lost items since the last notice; `counts` are totals so far.
    func deliverDropNotice(_ counts: Mailbox.DropCounts)
}

/// One serial, bounded queue run by the shared ``MailboxPool``: how each plugin (and the
/// `--events` writer) receives its calls, one at a time, in order. Publishers never block: when the
/// queue is full the item is dropped, counted and reported through
/// `onDrop`, and the consumer gets a drop notice as soon as it is free again.
/// Control tasks (create, commands, destroy) are never dropped.
///
/// At shutdown the owner calls `discardPending()` (the queued events and media
/// are dropped and counted) and then `close(after:timeout:)`; when the consumer
/// does not finish in time the mailbox is abandoned: its thread is left in the
/// call it is stuck in and never calls the consumer again.
public final class Mailbox: @unchecked Sendable {
    public struct DropCounts: Equatable, Sendable {
        public var events: UInt64 = 0
        public var mediaBuffers: UInt64 = 0
        public var mediaBytes: UInt64 = 0
        public var lastMediaTap: UInt32 = 0
    }

    public struct Limits: Sendable {
        public var events: Int
        public var mediaBytes: Int
        public init(events: Int = 4096, mediaBytes: Int = 32 << 20) {
            self.events = events
            self.mediaBytes = mediaBytes
        }
    }

    fileprivate enum Item {
        case event(FrozenEvent)
        case media(MediaPacket, extraFlags: UInt32)
        case task(() -> Void)
        case dropNotice
    }

    public let name: String
    public let limits: Limits
    /// Called on the publishing thread when an item is dropped (for logging and the `dropped` event).
    package let onDrop: @Sendable (DropCounts, _ mediaTap: UInt32) -> Void

    private weak var consumer: (any MailboxConsumer)?
    private let condition = NSCondition()
    private var items: [Item] = []
    private var queuedEvents = 0
    private var queuedMediaBytes = 0
    private var drops = DropCounts()
    private var noticePending = false
    private var discontinuousTaps: UInt32 = 0
    private var closed = false
    /// Queued on the pool or being run by a worker: an offer then needs no new scheduling.
    private var scheduled = false
    private var started = false
    /// Events and media of the batch the thread has taken but not yet started to deliver.
    /// The thread claims each one by decrementing; `discardPending()` takes the rest by
    /// setting it to 0, so every item is either delivered or counted as discarded, never both.
    private let unclaimedInBatch = Atomic<Int>(0)
    /// Set when `close(after:timeout:)` gave up: nothing more is delivered.
    private let abandoned = Atomic<Bool>(false)
    private var discarded = 0

    public init(name: String, limits: Limits = Limits(), onDrop: @escaping @Sendable (DropCounts, UInt32) -> Void = { _, _ in }) {
        self.name = name
        self.limits = limits
        self.onDrop = onDrop
    }

    /// Starts delivering (on the pool). The consumer is held weakly: its owner keeps it alive.
    public func start(consumer: any MailboxConsumer) {
        condition.lock()
        self.consumer = consumer
        started = true
        let needsRun = !items.isEmpty || noticePending || closed
        condition.unlock()
        if needsRun { wake() }
    }

    public var dropCounts: DropCounts {
        condition.lock(); defer { condition.unlock() }
        return drops
    }

    /// Offers an event; false when the queue was full and the event was dropped.
    @discardableResult
    public func offer(_ event: FrozenEvent) -> Bool {
        condition.lock()
        guard !closed else { condition.unlock(); return false }
        guard queuedEvents < limits.events else {
            drops.events += 1
            noticePending = true
            let counts = drops
            condition.unlock()
            onDrop(counts, 0)
            return false
        }
        queuedEvents += 1
        items.append(.event(event))
        let schedule = claimRun()
        condition.unlock()
        if schedule { MailboxPool.shared.schedule(self) }
        return true
    }

    /// Offers a media packet; false when the byte budget was exceeded and it was dropped.
    /// The first packet accepted after a loss carries OTON_MEDIA_FLAG_DISCONT.
    @discardableResult
    public func offer(_ packet: MediaPacket) -> Bool {
        let tapBit = packet.tap
        condition.lock()
        guard !closed else { condition.unlock(); return false }
        guard queuedMediaBytes + packet.size <= limits.mediaBytes || queuedMediaBytes == 0 else {
            drops.mediaBuffers += 1
            drops.mediaBytes += UInt64(packet.size)
            drops.lastMediaTap = tapBit
            discontinuousTaps |= tapBit
            noticePending = true
            let counts = drops
            condition.unlock()
            onDrop(counts, tapBit)
            return false
        }
        var extra: UInt32 = 0
        if discontinuousTaps & tapBit != 0 {
            extra = 1  // OTON_MEDIA_FLAG_DISCONT
            discontinuousTaps &= ~tapBit
        }
        queuedMediaBytes += packet.size
        items.append(.media(packet, extraFlags: extra))
        let schedule = claimRun()
        condition.unlock()
        if schedule { MailboxPool.shared.schedule(self) }
        return true
    }

    /// Runs `work` on the mailbox worker after everything queued before it. Never dropped while open;
    /// returns false, and `work` never runs, when the mailbox is already closed.
    @discardableResult
    public func perform(_ work: @escaping () -> Void) -> Bool {
        condition.lock()
        if closed {
            condition.unlock()
            return false
        }
        items.append(.task(work))
        let schedule = claimRun()
        condition.unlock()
        if schedule { MailboxPool.shared.schedule(self) }
        return true
    }

    /// Runs `last` after everything queued, then ends the thread; later offers are refused.
    /// Blocks until `last` has run.
    public func close(after last: @escaping () -> Void = {}) {
        _ = close(after: last, timeout: nil)
    }

    /// As `close(after:)`, but waits at most `timeout` seconds (nil: for ever). Returns false when
    /// the time ran out: the mailbox is then abandoned and `last` will not run if it has not started.
    public func close(after last: @escaping () -> Void, timeout: Double?) -> Bool {
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        if closed || !started {
            condition.unlock()
            return true
        }
        items.append(
            .task { [self] in
                if !abandoned.load(ordering: .sequentiallyConsistent) { last() }
                done.signal()
            })
        closed = true
        let schedule = claimRun()
        condition.unlock()
        if schedule { MailboxPool.shared.schedule(self) }
        guard let timeout else {
            done.wait()
            return true
        }
        guard done.wait(timeout: .now() + timeout) == .success else {
            abandoned.store(true, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    /// Drops every event and media packet queued and not yet delivered (control tasks stay),
    /// adds them to `discardedCount` and returns how many this call dropped. Items offered
    /// afterwards are delivered as usual.
    @discardableResult
    public func discardPending() -> Int {
        condition.lock()
        defer { condition.unlock() }
        var count = unclaimedInBatch.exchange(0, ordering: .sequentiallyConsistent)
        items.removeAll { item in
            switch item {
            case .event, .media: count += 1; return true
            case .task, .dropNotice: return false
            }
        }
        queuedEvents = 0
        queuedMediaBytes = 0
        noticePending = false
        discarded += count
        return count
    }

    /// Events and media dropped by `discardPending()` so far.
    public var discardedCount: Int {
        condition.lock(); defer { condition.unlock() }
        return discarded
    }

    /// Blocks until everything queued so far has been delivered (tests, orderly shutdown).
    public func drain() {
        _ = drain(timeout: nil)
    }

    /// As `drain()`, but waits at most `timeout` seconds (nil: for ever); false when time ran out.
    public func drain(timeout: Double?) -> Bool {
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        if closed || !started {
            condition.unlock()
            return true
        }
        items.append(.task { done.signal() })
        let schedule = claimRun()
        condition.unlock()
        if schedule { MailboxPool.shared.schedule(self) }
        guard let timeout else {
            done.wait()
            return true
        }
        return done.wait(timeout: .now() + timeout) == .success
    }

    /// Called with the lock held: true when this caller must hand the mailbox to the pool (it was
    /// idle, has started, and has not been abandoned).
    private func claimRun() -> Bool {
        guard started, !scheduled, !abandoned.load(ordering: .relaxed) else { return false }
        scheduled = true
        return true
    }

    /// Schedules a run if one is needed (after start).
    private func wake() {
        condition.lock()
        let schedule = claimRun()
        condition.unlock()
        if schedule { MailboxPool.shared.schedule(self) }
    }

    /// One turn on a pool worker: delivers what is queued now. Returns true when more arrived
    /// meanwhile (the pool runs it again, after the others waiting); false leaves it idle.
    package func runBatch() -> Bool {
        condition.lock()
        if items.isEmpty && !noticePending {
            scheduled = false
            condition.unlock()
            return false
        }
        var batch = items
        if noticePending {
            // Tell the consumer what it lost as soon as it is free again: after the events and
            // media queued before the loss, before any control task (a drain sees it delivered).
            noticePending = false
            let firstTask = batch.firstIndex { if case .task = $0 { true } else { false } } ?? batch.endIndex
            batch.insert(.dropNotice, at: firstTask)
        }
        items.removeAll(keepingCapacity: true)
        queuedEvents = 0
        queuedMediaBytes = 0
        let counts = drops
        unclaimedInBatch.store(batch.count { $0.isDiscardable }, ordering: .sequentiallyConsistent)
        condition.unlock()

        for item in batch {
            // Abandoned (a close that timed out): this worker goes back to the pool; nothing more is delivered.
            if abandoned.load(ordering: .relaxed) { return false }
            switch item {
            case let .event(event): if claim() { consumer?.deliver(event: event) }
            case let .media(packet, extra): if claim() { consumer?.deliver(media: packet, extraFlags: extra) }
            case let .task(work): work()
            case .dropNotice: consumer?.deliverDropNotice(counts)
            }
        }
        condition.lock()
        let more = !items.isEmpty || noticePending
        if !more { scheduled = false }
        condition.unlock()
        return more
    }

    /// Takes the next event or media item of the batch for delivery; false when
    /// `discardPending()` took it (and counted it) first.
    private func claim() -> Bool {
        var current = unclaimedInBatch.load(ordering: .sequentiallyConsistent)
        while current > 0 {
            let (exchanged, original) = unclaimedInBatch.compareExchange(
                expected: current, desired: current - 1, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }
}

extension Mailbox.Item {
    /// Events and media: what `discardPending()` drops.
    package var isDiscardable: Bool {
        switch self {
        case .event, .media: true
        case .task, .dropNotice: false
        }
    }
}
