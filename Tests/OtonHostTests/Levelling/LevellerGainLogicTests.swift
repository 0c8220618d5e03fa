import OtonLeveller
import XCTest

/// The leveller's gain logic (Sources/OtonLeveller/level_gain.c) fed loudness readings, no audio:
/// the gain never moves faster than 1 dB/s once settled, a new station settles in its first
/// seconds, a remembered loudness starts at its gain, silence lifts nothing.
final class LevellerGainLogicTests: XCTestCase {
    /// 100 ms readings, as the leveller takes them.
    let hop = 0.1

    func testOnceSettledTheGainMovesAtMostOneDecibelPerSecond() {
        var gain = oton_level_gain()
        oton_level_gain_init(&gain, -18, -18)  // remembered: settled from the start, at 0 dB
        XCTAssertEqual(gain.gain_db, 0, accuracy: 1e-9)
        var previous = gain.gain_db
        var steepest = 0.0
        // The station turns 12 dB louder, then 20 dB quieter: the gain follows, never faster than 1 dB/s.
        for step in 0..<1200 {
            let reading = step < 600 ? -6.0 : -26.0
            let now = oton_level_gain_step(&gain, reading, hop)
            steepest = max(steepest, abs(now - previous) / hop)
            previous = now
        }
        XCTAssertLessThanOrEqual(steepest, OTON_LEVEL_SLEW_DB_PER_SECOND + 1e-9, "at most 1 dB/s")
        XCTAssertGreaterThan(steepest, 0.9, "and it does follow (at its limit when far off)")
        XCTAssertEqual(gain.gain_db, oton_level_gain_desired(&gain), accuracy: 0.5, "it arrives")
    }

    func testANewStationSettlesInItsFirstSecondsThenSlowsToOneDecibelPerSecond() {
        var gain = oton_level_gain()
        oton_level_gain_init(&gain, -18, .nan)
        XCTAssertEqual(gain.gain_db, 0, "nothing measured: unity")
        XCTAssertTrue(oton_level_gain_loudness(&gain).isNaN)
        var seconds = 0.0
        while seconds < 3 {
            _ = oton_level_gain_step(&gain, -27, hop)
            seconds += hop
        }
        XCTAssertEqual(gain.gain_db, 9, accuracy: 0.05, "−27 LUFS is lifted by 9 dB within 3 s")
        XCTAssertEqual(oton_level_gain_loudness(&gain), -27, accuracy: 0.01)
        // Past the settling seconds, a change is followed at 1 dB/s.
        for _ in 0..<30 { _ = oton_level_gain_step(&gain, -27, hop) }
        var previous = gain.gain_db
        for _ in 0..<50 {
            let now = oton_level_gain_step(&gain, -10, hop)
            XCTAssertLessThanOrEqual(abs(now - previous), OTON_LEVEL_SLEW_DB_PER_SECOND * hop + 1e-9)
            previous = now
        }
    }

    func testARememberedLoudnessStartsAtItsGainAtOnce() {
        var gain = oton_level_gain()
        oton_level_gain_init(&gain, -18, -9.5)
        XCTAssertEqual(gain.gain_db, -8.5, accuracy: 1e-9, "the right gain before the first reading")
        XCTAssertEqual(oton_level_gain_step(&gain, -9.5, hop), -8.5, accuracy: 1e-6)
    }

    func testSilenceAndPausesLiftNothing() {
        var gain = oton_level_gain()
        oton_level_gain_init(&gain, -18, -18)
        for _ in 0..<600 { _ = oton_level_gain_step(&gain, -.infinity, hop) }
        for _ in 0..<600 { _ = oton_level_gain_step(&gain, -75, hop) }
        XCTAssertEqual(gain.gain_db, 0, accuracy: 1e-9, "below the absolute gate: not loudness")
        // A quiet passage far under the running loudness is gated out (R128's relative gate).
        for step in 0..<600 { _ = oton_level_gain_step(&gain, step % 2 == 0 ? -18 : -40, hop) }
        XCTAssertEqual(gain.gain_db, 0, accuracy: 0.3, "the −40 LUFS blocks do not count")
    }

    func testTheGainStaysWithinItsLimits() {
        var gain = oton_level_gain()
        oton_level_gain_init(&gain, -18, -60)
        XCTAssertEqual(gain.gain_db, OTON_LEVEL_MAX_BOOST_DB, "a whisper is lifted 12 dB, not 42")
        oton_level_gain_init(&gain, -18, 10)
        XCTAssertEqual(gain.gain_db, OTON_LEVEL_MAX_CUT_DB)
    }
}
