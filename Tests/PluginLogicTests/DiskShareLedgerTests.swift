import FileSinkLogic
import XCTest

/// Issue 39, N2: near the floor, the recorder that wrote the most lately (more than twice any other
/// on its filesystem) is the one to stop first; recorders writing alike, or alone, never are.
final class DiskShareLedgerTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    func testTheOutlierOnItsFilesystemIsTheOneToStop() {
        var ledger = DiskShareLedger()
        ledger.join(1, device: 7, now: 0)
        ledger.join(2, device: 7, now: 0)
        ledger.join(3, device: 9, now: 0)  // another disk: not compared
        for tick in 1...10 {
            ledger.wrote(1, bytes: 65_536, now: Int64(tick) * second)
            ledger.wrote(2, bytes: 16_000, now: Int64(tick) * second)
            ledger.wrote(3, bytes: 1_000_000, now: Int64(tick) * second)
        }
        XCTAssertEqual(ledger.offence(1, now: 10 * second), .init(recent: 655_360, nextMost: 160_000, writers: 2))
        XCTAssertNil(ledger.offence(2, now: 10 * second), "the good station is not the offender")
        XCTAssertNil(ledger.offence(3, now: 10 * second), "alone on its disk: it stops at the floor as before")
        ledger.leave(1)
        XCTAssertNil(ledger.offence(2, now: 10 * second), "once the offender left, the other is alone")
    }

    func testRecordersWritingAlikeAreNeverSingledOutAndOldWritesAgeOut() {
        var ledger = DiskShareLedger()
        ledger.join(1, device: 7, now: 0)
        ledger.join(2, device: 7, now: 0)
        ledger.wrote(1, bytes: 30_000, now: second)
        ledger.wrote(2, bytes: 20_000, now: second)
        XCTAssertNil(ledger.offence(1, now: second), "1.5× is not an outlier")
        ledger.wrote(1, bytes: 10_000_000, now: 2 * second)
        XCTAssertNotNil(ledger.offence(1, now: 2 * second))
        // A window (30 s) later with writes alike, the old burst no longer counts.
        ledger.wrote(1, bytes: 20_000, now: 40 * second)
        ledger.wrote(2, bytes: 20_000, now: 40 * second)
        XCTAssertNil(ledger.offence(1, now: 40 * second))
    }
}
