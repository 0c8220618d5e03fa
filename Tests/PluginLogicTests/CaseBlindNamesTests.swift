import FileSinkLogic
import XCTest

/// Portable names: FAT, exFAT and SMB ignore case, so a name that differs only in case is taken.
final class CaseBlindNamesTests: XCTestCase {
    func testANameInAnotherCaseIsTakenAndAnExactOneIsLeftToTheFilesystem() {
        let folder = ["Artist - Song.mp3", "Кино - Группа крови.ogg", "index.json"]
        XCTAssertTrue(CaseBlindNames.isTaken("artist - SONG.mp3", among: folder))
        XCTAssertTrue(CaseBlindNames.isTaken("КИНО - группа крови.ogg", among: folder), "Cyrillic folds too")
        XCTAssertFalse(CaseBlindNames.isTaken("Artist - Song.mp3", among: folder), "an exact clash is EEXIST's to find")
        XCTAssertFalse(CaseBlindNames.isTaken("Artist - Song (2).mp3", among: folder))
        XCTAssertFalse(CaseBlindNames.isTaken("Index.JSON", among: folder, own: "index.json"), "a file may change its own case")
    }
}
