import Foundation
import OtonHost
import XCTest

/// `"loudness"` in plugins.json: a target in LUFS, or false to start with levelling off.
final class LoudnessConfigTests: XCTestCase {
    func testTheTargetAndTheSwitchAreRead() throws {
        XCTAssertEqual(try ConfigLoader.parse(Data(#"{"stations": []}"#.utf8), file: "p.json").loudness, LevellingSettings(targetLUFS: -16))
        XCTAssertEqual(try ConfigLoader.parse(Data(#"{"loudness": -23}"#.utf8), file: "p.json").loudness.targetLUFS, -23)
        XCTAssertEqual(try ConfigLoader.parse(Data(#"{"loudness": false}"#.utf8), file: "p.json").loudness.enabled, false)
        XCTAssertEqual(try ConfigLoader.parse(Data(#"{"loudness": true}"#.utf8), file: "p.json").loudness, LevellingSettings())
    }

    func testAnythingElseNamesTheKeyAndTheRange() {
        for text in [#"{"loudness": 0}"#, #"{"loudness": -100}"#, #"{"loudness": "loud"}"#] {
            XCTAssertThrowsError(try ConfigLoader.parse(Data(text.utf8), file: "p.json"), text) { error in
                XCTAssertTrue("\(error)".contains("loudness") && "\(error)".contains("-40") && "\(error)".contains("-6"), "\(error)")
            }
        }
    }
}
