import Foundation
import OtonHost
import XCTest

/// One volume scale for people, in percent, in every place a volume is typed.
final class VolumeArgumentTests: XCTestCase {
    func testPercentagesAndChangesAreReadTheSameEverywhere() {
        let read: [(String, VolumeArgument)] = [
            ("50", .absolute(50)), ("50%", .absolute(50)), ("+5", .relative(5)), ("-5", .relative(-5)),
            ("150", .absolute(150)), ("0", .absolute(0)),
        ]
        for (text, expected) in read { XCTAssertEqual(try VolumeArgument.parse(text).get(), expected, text) }
    }

    func testAFractionIsRefusedWithThePercentageItProbablyMeant() {
        guard case let .failure(error) = VolumeArgument.parse("0.5") else { return XCTFail("0.5 was accepted") }
        XCTAssertTrue(error.description.contains("50 means 0.5"), error.description)
        guard case let .failure(tooLoud) = VolumeArgument.parse("200") else { return XCTFail("200 was accepted") }
        XCTAssertTrue(tooLoud.description.contains("from 0 to 150"), tooLoud.description)
    }

    func testChangesStayWithinZeroAndOneHundredFifty() {
        XCTAssertEqual(VolumeArgument.relative(5).applied(to: 148), 150)
        XCTAssertEqual(VolumeArgument.relative(-5).applied(to: 3), 0)
        XCTAssertEqual(VolumeArgument.relative(5).applied(to: 70), 75)
        XCTAssertEqual(VolumeArgument.absolute(40).applied(to: 70), 40)
    }

    func testAboveOneHundredIsMarkedAmplified() {
        XCTAssertEqual(VolumeArgument.text(percent: 100), "100%")
        XCTAssertEqual(VolumeArgument.text(percent: 120), "120% amplified")
        XCTAssertEqual(VolumeArgument.percent(of: 0.7), 70)
        XCTAssertEqual(VolumeArgument.percent(of: 9), 150)
        XCTAssertEqual(VolumeArgument.percent(of: .nan), 100)
    }
}

/// The volume a person sets is heard on a perceptual curve (issue 54 §11): the amplitude is the cube
/// of the fraction, as PulseAudio's and GNOME's sliders have it.
final class OutputVolumeCurveTests: XCTestCase {
    private func decibels(_ percent: Double) -> Double { 20 * log10(OutputVolume.gain(of: percent / 100)) }

    func testStepsAreHeardAsSteps() {
        XCTAssertEqual(decibels(100), 0, accuracy: 0.001)
        XCTAssertEqual(decibels(85), -4.23, accuracy: 0.01, "a step down from full is heard (linear: -1.4 dB)")
        XCTAssertEqual(decibels(50), -18.06, accuracy: 0.01)
        XCTAssertEqual(decibels(150), 10.57, accuracy: 0.01, "amplified as PulseAudio's 150 %")
        XCTAssertEqual(OutputVolume.gain(of: 0), 0)
        XCTAssertEqual(OutputVolume.gain(of: 9), OutputVolume.gain(of: OutputVolume.maximum), "clamped first")
        XCTAssertEqual(OutputVolume.gain(of: .nan), 0)
    }
}
