import FileSinkLogic
import Foundation
import XCTest

/// Recorded file names in the portable style work on FAT/exFAT sticks and SMB shares; posix keeps them.
final class PortableFileNameTests: XCTestCase {
    private let template = try! FileNameTemplate(FileNameTemplate.standard)

    private func name(station: String = "Radio X", artist: String, title: String, style: FileNameStyle = .portable) -> String {
        template.render(["station": station, "artist": artist, "title": title, "ext": "mp3"], style: style)
    }

    /// The characters FAT, exFAT and SMB refuse.
    private let refused: Set<Character> = [":", "?", "*", "\"", "<", ">", "|", "\\"]

    func testRefusedCharactersBecomeLookAlikes() {
        let path = name(artist: "AC:DC", title: "Who? *Me* \"<now>\" | Back\\slash")
        XCTAssertEqual(path, "Radio X/AC：DC - Who？ ＊Me＊ ＂＜now＞＂ ｜ Back-slash.mp3")
        XCTAssertFalse(path.contains(where: refused.contains), path)
    }

    func testPosixKeepsEveryCharacterLinuxAllows() {
        XCTAssertEqual(name(station: "Radio X.", artist: "AC:DC", title: "Who?", style: .posix), "Radio X./AC:DC - Who?.mp3")
    }

    func testTrailingDotsAndSpacesGoFromFoldersAndFiles() {
        XCTAssertEqual(name(station: "Radio X... ", artist: "A", title: "B"), "Radio X/A - B.mp3")
        let withoutExtension = try! FileNameTemplate("{station}/{title}.mp3")
        XCTAssertEqual(withoutExtension.render(["station": "St. ", "title": "T"], style: .portable), "St/T.mp3")
        XCTAssertEqual(FileNameTemplate.safeComponent("Live at Wembley. . .", style: .portable), "Live at Wembley")
    }

    func testReservedDOSNamesGetAnUnderscoreWhateverTheirCaseOrExtension() {
        XCTAssertEqual(FileNameTemplate.safeComponent("CON", style: .portable), "CON_")
        XCTAssertEqual(FileNameTemplate.safeComponent("nul.mp3", style: .portable), "nul_.mp3")
        XCTAssertEqual(FileNameTemplate.safeComponent("Com1.tar.gz", style: .portable), "Com1_.tar.gz")
        XCTAssertEqual(FileNameTemplate.safeComponent("LPT9", style: .portable), "LPT9_")
        XCTAssertEqual(FileNameTemplate.safeComponent("CONSOLE.mp3", style: .portable), "CONSOLE.mp3", "only the exact device names")
        XCTAssertEqual(FileNameTemplate.safeComponent("COM10", style: .portable), "COM10")
        XCTAssertEqual(name(station: "aux", artist: "A", title: "B"), "aux_/A - B.mp3")
        XCTAssertEqual(FileNameTemplate.safeComponent("CON", style: .posix), "CON")
    }

    func testLongNamesStayWithin255BytesWithoutCuttingACharacter() {
        // Look-alikes take 3 bytes each: a name of them must still be cut at a character boundary.
        let title = String(repeating: "Кино?", count: 60)
        let path = name(artist: "Кино", title: title)
        let file = String(path.split(separator: "/").last!)
        XCTAssertLessThanOrEqual(file.utf8.count, 255)
        XCTAssertLessThanOrEqual(file.utf8.count, FileNameTemplate.maxComponentBytes)
        XCTAssertTrue(file.hasSuffix(".mp3"), file)
        XCTAssertNotNil(String(data: Data(file.utf8), encoding: .utf8))
        XCTAssertFalse(file.unicodeScalars.contains("\u{FFFD}"), file)
        XCTAssertFalse(file.contains(where: refused.contains), file)
        let stem = file.dropLast(4)
        XCTAssertFalse(stem.hasSuffix(" ") || stem.hasSuffix("."), file)
    }

    func testFileSinkConfigTakesNamesAndRefusesAnUnknownStyle() throws {
        XCTAssertEqual(try FileSinkSettings.parse(#"{"directory": "/tmp/x"}"#).names, .portable)
        XCTAssertEqual(try FileSinkSettings.parse(#"{"directory": "/tmp/x", "names": "posix"}"#).names, .posix)
        XCTAssertThrowsError(try FileSinkSettings.parse(#"{"directory": "/tmp/x", "names": "dos"}"#)) { error in
            XCTAssertTrue("\(error)".contains("config.names must be \"portable\""), "\(error)")
        }
    }

    func testMaxSecondsIsAudioTimeInRange() throws {
        XCTAssertEqual(try FileSinkSettings.parse(#"{"directory": "/tmp/x", "max_seconds": 4}"#).maxSeconds, 4)
        XCTAssertThrowsError(try FileSinkSettings.parse(#"{"directory": "/tmp/x", "max_seconds": -1}"#))
        XCTAssertThrowsError(try FileSinkSettings.parse(#"{"directory": "/tmp/x", "max_seconds": 1e300}"#))
    }

    func testADroppedTrackSaysWhyInWords() {
        XCTAssertEqual(placement(relativeName: "a.mp3", complete: true, seconds: 4.1, minimumSeconds: 5, policy: .incomplete),
                       .drop("too short (4.1 s < 5 s), not kept"))
        XCTAssertEqual(placement(relativeName: "a.mp3", complete: true, seconds: 2, minimumSeconds: 2.5, policy: .incomplete),
                       .drop("too short (2.0 s < 2.5 s), not kept"))
        XCTAssertEqual(placement(relativeName: "a.mp3", complete: false, seconds: 60, minimumSeconds: 5, policy: .drop),
                       .drop("incomplete, not kept (--partial drop)"))
    }
}
