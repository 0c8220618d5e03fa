import Foundation
import OtonHost
import XCTest

/// Shutdown of one mailbox: what is pending is dropped exactly once and counted,
/// and a consumer stuck in a call is abandoned when the deadline passes.
final class MailboxShutdownTests: XCTestCase {
    /// Records what it receives; blocks in the first event until released.
    private final class GatedConsumer: MailboxConsumer, @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var seen: [UInt64] = []
        private var blocked = false

        var received: [UInt64] { lock.withLock { seen } }

        func deliver(event: FrozenEvent) {
            guard case let .track(_, sequence) = event.event.payload else { return }
            let first = lock.withLock { () -> Bool in
                seen.append(sequence)
                defer { blocked = true }
                return !blocked
            }
            if first {
                entered.signal()
                release.wait()
            }
        }

        func deliver(media: MediaPacket, extraFlags: UInt32) {}
        func deliverDropNotice(_ counts: Mailbox.DropCounts) {}
    }

    private func track(_ sequence: UInt64) -> FrozenEvent {
        FrozenEvent(.track(TrackInfo(title: "T\(sequence)"), sequence: sequence))
    }

    func testPendingEventsAreDroppedCountedAndLaterOnesDelivered() {
        let consumer = GatedConsumer()
        let mailbox = Mailbox(name: "gated")
        mailbox.start(consumer: consumer)
        mailbox.offer(track(1))
        XCTAssertEqual(consumer.entered.wait(timeout: .now() + 5), .success)
        for sequence in UInt64(2)...50 { mailbox.offer(track(sequence)) }
        XCTAssertEqual(mailbox.discardPending(), 49, "everything behind the call in progress")
        mailbox.offer(track(99))
        consumer.release.signal()
        XCTAssertTrue(mailbox.close(after: {}, timeout: 5))
        XCTAssertEqual(consumer.received, [1, 99])
        XCTAssertEqual(mailbox.discardedCount, 49)
    }

    func testEventsAlreadyTakenIntoTheBatchAreDroppedToo() {
        // The thread takes the queue as one batch; events of that batch not yet delivered
        // must be dropped (and counted) as well, each exactly once.
        for _ in 0..<20 {
            let consumer = GatedConsumer()
            let mailbox = Mailbox(name: "batch")
            mailbox.start(consumer: consumer)
            for sequence in 1...200 { mailbox.offer(track(UInt64(sequence))) }
            XCTAssertEqual(consumer.entered.wait(timeout: .now() + 5), .success)
            let dropped = mailbox.discardPending()
            consumer.release.signal()
            XCTAssertTrue(mailbox.close(after: {}, timeout: 5))
            XCTAssertEqual(consumer.received, [1])
            XCTAssertEqual(dropped, 199)
        }
    }

    func testStuckConsumerIsAbandonedAtTheDeadlineAndNeverCalledAgain() {
        let consumer = GatedConsumer()
        let mailbox = Mailbox(name: "stuck")
        mailbox.start(consumer: consumer)
        mailbox.offer(track(1))
        XCTAssertEqual(consumer.entered.wait(timeout: .now() + 5), .success)
        mailbox.offer(track(2))
        let lastRan = DispatchSemaphore(value: 0)
        let started = Date()
        XCTAssertFalse(mailbox.close(after: { lastRan.signal() }, timeout: 0.3))
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.29)
        XCTAssertLessThan(waited, 2)
        consumer.release.signal()
        // Once it is free again, neither the queued event nor the final task may run.
        XCTAssertEqual(lastRan.wait(timeout: .now() + 0.5), .timedOut)
        XCTAssertEqual(consumer.received, [1])
    }
}
