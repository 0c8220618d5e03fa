import Foundation
import HistoryLogic
import XCTest

/// `history --search` ignores case and accents in every script; short starts and placeholders are skipped.
final class HistorySearchAndSkipTests: XCTestCase {
    func testCyrillicFoldsWhateverTheCase() {
        XCTAssertEqual(SearchFolding.fold("Кино"), SearchFolding.fold("кино"))
        XCTAssertEqual(SearchFolding.fold("КИНО"), SearchFolding.fold("кино"))
        XCTAssertTrue(SearchFolding.matches("Кино - Группа крови", "кино"))
        XCTAssertTrue(SearchFolding.matches("кино - Группа крови", "КИНО"))
        XCTAssertTrue(SearchFolding.matches("Ёлка", "елка"), "ё is е with a diaeresis")
        XCTAssertFalse(SearchFolding.matches("Кино", "кина"))
    }

    func testLatinAccentsAndCaseFold() {
        XCTAssertTrue(SearchFolding.matches("Beyoncé - Halo", "beyonce"))
        XCTAssertTrue(SearchFolding.matches("Beyonce - Halo", "BEYONCÉ"))
        XCTAssertTrue(SearchFolding.matches("Motörhead", "motorhead"))
        XCTAssertTrue(SearchFolding.matches("Die Ärzte — Straße", "STRASSE"))
        // Precomposed and decomposed é are the same text.
        XCTAssertTrue(SearchFolding.matches("Beyonce\u{301}", "beyoncé"))
        XCTAssertFalse(SearchFolding.matches("Beyoncé", "beyond"))
    }

    func testOtherScriptsFold() {
        XCTAssertTrue(SearchFolding.matches("ΣΩΚΡΑΤΗΣ", "σωκρατης"), "Greek, with the final sigma")
        XCTAssertTrue(SearchFolding.matches("Ｍｏｎｅｙ", "money"), "full-width Latin")
        XCTAssertTrue(SearchFolding.matches("坂本龍一", "龍一"), "scripts without case are compared as they are")
    }

    func testShortStartsAndPlaceholdersAreSkippedAndStillPlayingIsNot() {
        XCTAssertTrue(SkipRule.isSkipped(artist: "Pink Floyd", title: "Money", secondsListened: 12, ended: true, minimumSeconds: 30))
        XCTAssertFalse(SkipRule.isSkipped(artist: "Pink Floyd", title: "Money", secondsListened: 30, ended: true, minimumSeconds: 30))
        XCTAssertFalse(SkipRule.isSkipped(artist: "Pink Floyd", title: "Money", secondsListened: nil, ended: false, minimumSeconds: 30),
                       "a track still playing is not skipped yet")
        XCTAssertTrue(SkipRule.isSkipped(artist: "Unknown", title: "Unknown", secondsListened: 300, ended: true, minimumSeconds: 30))
        XCTAssertTrue(SkipRule.isPlaceholder(artist: "UNKNOWN ARTIST", title: "unknown"))
        XCTAssertTrue(SkipRule.isPlaceholder(artist: nil, title: "Unknown"))
        XCTAssertFalse(SkipRule.isPlaceholder(artist: "Unknown", title: "Money"), "a title is a title")
        XCTAssertFalse(SkipRule.isPlaceholder(artist: nil, title: nil), "nothing at all is a jingle, not a placeholder")
    }

    func testPlaceholdersAreNeverScrobbled() {
        let start = PlayStart(sequence: 1, artist: "Unknown", title: "Unknown", startedAtMicroseconds: 0)
        XCTAssertNil(ScrobbleRule.nowPlaying(start))
        let end = PlayEnd(start: start, endedAtMicroseconds: 600_000_000, secondsListened: 600, endedByTitleChange: true)
        XCTAssertNil(ScrobbleRule.listen(for: end, minimumLiveSeconds: 30))
    }

    func testAllIsAFlagAndSkippedRowsAreMarkedInEveryFormat() throws {
        XCTAssertTrue(try HistoryQuery.parse(["--all"]).all)
        XCTAssertFalse(try HistoryQuery.parse([]).all)
        XCTAssertThrowsError(try HistoryQuery.parse(["--all=yes"]))
        let row = PlayRow(id: 1, station: "X", artist: "Pink Floyd", title: "Money", rawTitle: nil, startedAt: 0, endedAt: 12_000_000,
                          secondsListened: 12, artworkPath: nil, isJingle: false, isSkipped: true)
        XCTAssertTrue(HistoryFormatter.format([row], as: .table).contains("Money [skipped]"))
        XCTAssertTrue(HistoryFormatter.format([row], as: .json).contains("\"skipped\" : true"))
        let csv = HistoryFormatter.format([row], as: .csv).split(separator: "\n")
        XCTAssertTrue(csv[0].hasSuffix(",skipped"))
        XCTAssertTrue(csv[1].hasSuffix(",1"))
    }
}
