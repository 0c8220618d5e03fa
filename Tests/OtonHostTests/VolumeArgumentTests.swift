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
