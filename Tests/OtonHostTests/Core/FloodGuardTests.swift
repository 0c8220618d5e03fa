import OtonMedia
import XCTest

/// Issue 39, N2: a light connection is read at no more than 4× the rate its station declares
/// (512 kbit/s at the least; 8 Mbit/s when nothing is declared), with 5 s saved up for bursts.
final class FloodGuardTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    /// Feeds 16 KiB pieces as fast as they are admitted for `seconds`; returns the bytes read and the holds.
    private func flood(_ guardian: inout FloodGuard, from start: Int64, seconds: Int64) -> (bytes: Int, firstHolds: Int) {
        var bytes = 0, firstHolds = 0
        var now = start
        while now < start + seconds * second {
            switch guardian.admit(16_384, now: now) {
            case .read: bytes += 16_384
            case let .hold(firstTime):
                if firstTime { firstHolds += 1 }
                now += 10_000_000
                _ = guardian.mayResume(now: now)
            }
        }
        return (bytes, firstHolds)
    }

    func testAFloodIsHeldToFourTimesTheDeclaredRateAndSaidOnce() {
        var guardian = FloodGuard(now: 0)
        guardian.declare(bitsPerSecond: 128_000)
        XCTAssertEqual(guardian.limit, 65_536, "4 × 128 kbit/s is under the 512 kbit/s floor")
        let (bytes, firstHolds) = flood(&guardian, from: 0, seconds: 60)
        // 5 s saved up, then 64 KiB a second (one piece over at each resume at most).
        XCTAssertLessThan(Double(bytes), Double(65 * 65_536) * 1.3)
        XCTAssertGreaterThan(Double(bytes), Double(60 * 65_536) * 0.9)
        XCTAssertEqual(firstHolds, 1, "said once")
    }

    func testAStationWithinItsRateIsNeverHeldAndNothingDeclaredMeansTheCeiling() {
        var guardian = FloodGuard(now: 0)
        guardian.declare(bitsPerSecond: 320_000)
        for tick in 0..<600 {  // 60 s at 320 kbit/s, in 100 ms pieces
            XCTAssertEqual(guardian.admit(4_000, now: Int64(tick) * 100_000_000), .read)
        }
        var unknown = FloodGuard(now: 0)
        unknown.declare(bitsPerSecond: nil)
        XCTAssertEqual(unknown.limit, FloodGuard.ceilingBytesPerSecond)
    }
}
