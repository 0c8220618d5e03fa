import Foundation
import OtonEvents
import OtonHost
import XCTest

/// The mailbox pool adds a worker when every worker is stuck in a call while others wait, and that
/// worker leaves once it has been idle a while: the thread count comes back to the base (it used to
/// grow under a slow disk and stay, issue 37 §6).
final class MailboxPoolShrinkTests: XCTestCase {
    private final class Gate: MailboxConsumer, @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        func deliver(event: FrozenEvent) {
            entered.signal()
            release.wait()
        }

        func deliver(media: MediaPacket, extraFlags: UInt32) {}
        func deliverDropNotice(_ counts: Mailbox.DropCounts) {}
    }

    func testAWorkerAddedForStuckCallsLeavesWhenIdle() throws {
        let pool = MailboxPool.shared
        let base = pool.workerCount
        let gates = (0...base).map { _ in Gate() }
        let mailboxes = gates.enumerated().map { index, gate in
            let mailbox = Mailbox(name: "stuck-\(index)")
            mailbox.start(consumer: gate)
            return mailbox
        }
        // Every base worker stuck in a call, one more mailbox waiting.
        for (mailbox, gate) in zip(mailboxes.prefix(base), gates) {
            mailbox.offer(FrozenEvent(.track(TrackInfo(title: "T"), sequence: 1)))
            XCTAssertEqual(gate.entered.wait(timeout: .now() + 30), .success)
        }
        mailboxes[base].offer(FrozenEvent(.track(TrackInfo(title: "T"), sequence: 1)))
        XCTAssertEqual(gates[base].entered.wait(timeout: .now() + 30), .success, "a worker was added for the waiting mailbox")
        XCTAssertGreaterThan(pool.workerCount, base)
        for gate in gates { gate.release.signal() }
        let deadline = Date().addingTimeInterval(MailboxPool.extraIdleSeconds + 30)
        while Date() < deadline, pool.workerCount > base { usleep(200_000) }
        XCTAssertEqual(pool.workerCount, base, "the added worker left once idle")
        // The pool still serves every mailbox.
        let after = Gate()
        let mailbox = Mailbox(name: "after")
        mailbox.start(consumer: after)
        mailbox.offer(FrozenEvent(.track(TrackInfo(title: "T"), sequence: 2)))
        XCTAssertEqual(after.entered.wait(timeout: .now() + 30), .success)
        after.release.signal()
        for mailbox in mailboxes + [mailbox] { _ = mailbox.close(after: {}, timeout: 5) }
    }
}
