import NowPlayingLogic
import XCTest

/// MPRIS's position in the timeshift ring, from one `status` reading, as time passes.
final class TimeshiftTimelineTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    func testLiveGrowsWithTheRingUntilItsLimit() {
        let live = TimeshiftTimeline(heldMilliseconds: 10_000, behindMilliseconds: 0, limitMilliseconds: 20_000, readAt: 0, playing: true)
        XCTAssertEqual(live.position(at: 5 * second), 15_000_000)
        XCTAssertEqual(live.position(at: 60 * second), 20_000_000, "a full ring's length")
    }

    func testBehindLiveStaysPutWhilePlayingAndFallsBackWhilePaused() {
        let full = TimeshiftTimeline(heldMilliseconds: 20_000, behindMilliseconds: 5_000, limitMilliseconds: 20_000, readAt: 0, playing: true)
        XCTAssertEqual(full.position(at: 3 * second), 15_000_000, "the ring's start moves on as playback does")
        let paused = TimeshiftTimeline(heldMilliseconds: 20_000, behindMilliseconds: 5_000, limitMilliseconds: 20_000, readAt: 0, playing: false)
        XCTAssertEqual(paused.position(at: 3 * second), 12_000_000)
        XCTAssertEqual(paused.position(at: 60 * second), 0, "never before the ring's start")
    }

    func testSeekArguments() {
        XCTAssertEqual(TimeshiftTimeline.seekArgument(byMicroseconds: -10_000_000), "-10.000s")
        XCTAssertEqual(TimeshiftTimeline.seekArgument(byMicroseconds: 2_500_000), "+2.500s")
        let timeline = TimeshiftTimeline(heldMilliseconds: 30_000, behindMilliseconds: 0, limitMilliseconds: 60_000, readAt: 0, playing: true)
        XCTAssertEqual(timeline.seekArgument(toPosition: 3_000_000, at: 0), "-27.000s")
    }
}
