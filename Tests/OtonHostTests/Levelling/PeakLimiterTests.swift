import Foundation
import OtonLeveller
import XCTest

/// The leveller's look-ahead limiter and the whole leveller on float buffers, no sound server.
final class PeakLimiterTests: XCTestCase {
    let rate = 48_000
    let ceiling = Float(pow(10, OTON_LIMITER_CEILING_DBFS / 20))

    /// Interleaved stereo: a 1 kHz sine at `amplitude` for `seconds`, starting at frame `from`.
    func sine(_ amplitude: Double, frames: Int, from: Int = 0) -> [Float] {
        (0..<frames).flatMap { frame -> [Float] in
            let value = Float(amplitude * sin(2 * .pi * 1000 * Double(frame + from) / Double(rate)))
            return [value, value]
        }
    }

    func testNoSampleLeavesAboveTheCeilingHoweverLoudTheInput() throws {
        let limiter = try XCTUnwrap(oton_peak_limiter_new(UInt32(rate), 2))
        defer { oton_peak_limiter_free(limiter) }
        var loudest: Float = 0
        // Quiet, then a sudden +6 dBFS burst, then quiet again, in 512-frame buffers.
        for block in 0..<300 {
            let amplitude = (100..<200).contains(block) ? 2.0 : 0.3
            var buffer = sine(amplitude, frames: 512, from: block * 512)
            buffer.withUnsafeMutableBufferPointer { oton_peak_limiter_process(limiter, $0.baseAddress, 512, 1) }
            loudest = max(loudest, buffer.map(abs).max() ?? 0)
        }
        XCTAssertLessThanOrEqual(OTON_LIMITER_CEILING_DBFS, -1, "under −1 dBFS")
        XCTAssertLessThanOrEqual(loudest, ceiling + 1e-6, "the ceiling at most")
        XCTAssertGreaterThan(loudest, ceiling * 0.95, "and the burst is loud, not silenced")
    }

    func testSoundUnderTheCeilingPassesUntouchedButDelayed() throws {
        let limiter = try XCTUnwrap(oton_peak_limiter_new(UInt32(rate), 2))
        defer { oton_peak_limiter_free(limiter) }
        let latency = oton_peak_limiter_latency(limiter)
        XCTAssertEqual(Double(latency) / Double(rate) * 1000, OTON_LIMITER_LOOKAHEAD_MS, accuracy: 0.1)
        let input = sine(0.5, frames: 4800)
        var output = input
        output.withUnsafeMutableBufferPointer { oton_peak_limiter_process(limiter, $0.baseAddress, 4800, 1) }
        for frame in latency..<4800 {
            XCTAssertEqual(output[frame * 2], input[(frame - latency) * 2], accuracy: 1e-6)
        }
    }

    func testTheLimitersGainFallsSmoothlyBeforeAPeakNotAtIt() throws {
        let limiter = try XCTUnwrap(oton_peak_limiter_new(UInt32(rate), 1))
        defer { oton_peak_limiter_free(limiter) }
        // A constant 0.5, one frame at 1.0: the gain eases down over the look-ahead, no step.
        var input = [Float](repeating: 0.5, count: 2000)
        input[1000] = 1.0
        var output = input
        output.withUnsafeMutableBufferPointer { oton_peak_limiter_process(limiter, $0.baseAddress, 2000, 1) }
        let latency = oton_peak_limiter_latency(limiter)
        let gains = (latency..<2000).map { output[$0] / input[$0 - latency] }
        let largestStep = zip(gains, gains.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        XCTAssertLessThanOrEqual(output.max() ?? 0, ceiling + 1e-6)
        XCTAssertLessThan(largestStep, 0.01, "the gain changes by under 1 % a frame")
    }

    func testTheLevellerBringsTwoTonesTwelveDecibelsApartWithinHalfADecibel() throws {
        var levels: [Double] = []
        for amplitude in [0.05, 0.2] {
            let leveller = try XCTUnwrap(oton_leveller_new(-18, .nan, 1))
            defer { oton_leveller_unref(leveller) }
            XCTAssertEqual(oton_leveller_configure(leveller, UInt32(rate), 2), 1)
            var last: [Float] = []
            for block in 0..<(12 * rate / 1024) {
                var buffer = sine(amplitude, frames: 1024, from: block * 1024)
                buffer.withUnsafeMutableBufferPointer { oton_leveller_process(leveller, $0.baseAddress, 1024) }
                last = buffer
            }
            levels.append(20 * log10((last.reduce(0) { $0 + Double($1 * $1) } / Double(last.count)).squareRoot()))
            let reading = oton_leveller_read(leveller)
            XCTAssertEqual(reading.target_lufs - reading.loudness_lufs, reading.gain_db, accuracy: 0.3, "settled at the target")
        }
        XCTAssertEqual(levels[0], levels[1], accuracy: 0.5, "12 dB apart at the input: \(levels)")
    }

    func testTurnedOffTheLevellerPassesTheSoundAtItsOwnLevel() throws {
        let leveller = try XCTUnwrap(oton_leveller_new(-18, -30, 0))
        defer { oton_leveller_unref(leveller) }
        XCTAssertEqual(oton_leveller_configure(leveller, UInt32(rate), 2), 1)
        let input = sine(0.05, frames: 4800)
        var output = input
        output.withUnsafeMutableBufferPointer { oton_leveller_process(leveller, $0.baseAddress, 4800) }
        let latency = Int(Double(rate) * OTON_LIMITER_LOOKAHEAD_MS / 1000)
        // The first sound rises over OTON_LEVELLER_FADE_MS (no click at a start, levelling on or off); after it, unchanged.
        let ramp = Int(Double(rate) * Double(OTON_LEVELLER_FADE_MS) / 1000) + rate / 500
        XCTAssertLessThan(abs(output[(latency + 8) * 2]), abs(input[8 * 2]) / 2, "the start rises")
        for frame in (latency + ramp)..<4800 { XCTAssertEqual(output[frame * 2], input[(frame - latency) * 2], accuracy: 1e-7) }
        XCTAssertEqual(oton_leveller_read(leveller).gain_db, 0)
        oton_leveller_set_enabled(leveller, 1)
        XCTAssertEqual(oton_leveller_read(leveller).gain_db, 12, accuracy: 1e-9, "on: the remembered −30 LUFS is lifted 12 dB")
    }
}
