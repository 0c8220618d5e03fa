import OtonHost
import XCTest

/// What a wish matches: folded text in every script, `*` and `?`, the whole text, and which field.
final class WishMatchingTests: XCTestCase {
    private func wish(_ pattern: String, _ field: Wish.Field = .track) throws -> Wish { try Wish(pattern: pattern, field: field) }

    func testACombinedPatternMatchesArtistAndTitleFoldedInEveryScript() throws {
        let kino = try wish("кино - *")
        XCTAssertTrue(kino.matches(artist: "Кино", title: "Группа крови", rawTitle: nil))
        XCTAssertTrue(kino.matches(artist: "КИНО", title: "Звезда по имени Солнце", rawTitle: nil))
        XCTAssertFalse(kino.matches(artist: "Кино Кинович", title: "Звезда", rawTitle: nil), "the artist is the whole text before the dash")
        XCTAssertFalse(kino.matches(artist: "Alphaville", title: "Кино - Big in Japan", rawTitle: nil))
        XCTAssertTrue(try wish("Ёлка - *").matches(artist: "елка", title: "Прованс", rawTitle: nil))
        XCTAssertTrue(try wish("beyonce - halo").matches(artist: "Beyoncé", title: "Halo", rawTitle: nil))
        XCTAssertTrue(try wish("ＡＢＢＡ - *").matches(artist: "abba", title: "SOS", rawTitle: nil), "width folds too")
    }

    func testWildcardsStandForARunOrOneCharacterAndThePatternCoversTheWholeText() throws {
        XCTAssertTrue(try wish("*rhapsody*").matches(artist: "Queen", title: "Bohemian Rhapsody", rawTitle: nil))
        XCTAssertTrue(try wish("queen - bohemian rhapsod?").matches(artist: "Queen", title: "Bohemian Rhapsody", rawTitle: nil))
        XCTAssertFalse(try wish("queen - bohemian rhapsod?").matches(artist: "Queen", title: "Bohemian Rhapsodies", rawTitle: nil))
        XCTAssertFalse(try wish("queen - bohemian").matches(artist: "Queen", title: "Bohemian Rhapsody", rawTitle: nil), "no implicit *")
        XCTAssertTrue(try wish("a*b*c").matches(artist: nil, title: nil, rawTitle: "aXXbYYbZc"), "backtracks to the last *")
        XCTAssertFalse(try wish("a*b*c").matches(artist: nil, title: nil, rawTitle: "aXXbYYbZ"))
    }

    func testArtistAndTitleWishesLookAtTheirFieldOnly() throws {
        let artist = try wish("Beyoncé", .artist)
        XCTAssertTrue(artist.matches(artist: "BEYONCE", title: "Halo", rawTitle: nil))
        XCTAssertFalse(artist.matches(artist: "Queen", title: "Beyoncé", rawTitle: nil))
        XCTAssertFalse(artist.matches(artist: nil, title: nil, rawTitle: "Beyoncé - Halo"), "no artist named: no artist wish")
        let title = try wish("Bohemian Rhapsody", .title)
        XCTAssertTrue(title.matches(artist: "Queen", title: "bohemian rhapsody", rawTitle: nil))
        XCTAssertTrue(title.matches(artist: "Panic! at the Disco", title: "Bohemian Rhapsody", rawTitle: nil), "by anyone")
        XCTAssertFalse(title.matches(artist: "Bohemian Rhapsody", title: "Other", rawTitle: nil))
    }

    func testAStationThatDoesNotSplitArtistAndTitleIsMatchedByItsRawTitle() throws {
        XCTAssertTrue(try wish("кино - *").matches(artist: nil, title: nil, rawTitle: "Кино - Кукушка"))
        XCTAssertTrue(try wish("*кукушка").matches(artist: nil, title: "Кино — Кукушка", rawTitle: nil))
    }

    func testBadPatternsAreRefusedSayingWhatToDo() {
        for (pattern, words) in [
            ("", "empty"), ("   ", "empty"), ("*", "every track"), ("* - *", "every track"), ("??", "every track"),
            ("a\nb", "one line"), ("a\u{2028}b", "one line"), ("Кино\u{202E} - *", "one line"), ("a\u{200B}b", "one line"),
            (String(repeating: "x", count: 501), "longer than 500"),
        ] {
            XCTAssertThrowsError(try wish(pattern), pattern) { error in
                XCTAssertTrue("\(error)".contains(words), "\(pattern): \(error)")
            }
        }
        XCTAssertThrowsError(try wish("", .artist)) { XCTAssertTrue("\($0)".contains("--artist"), "\($0)") }
    }

    func testWishesThatDifferOnlyInCaseOrAccentsAreTheSameWish() throws {
        XCTAssertEqual(try wish("Кино - *"), try wish("кино - *"))
        XCTAssertEqual(try wish("Beyoncé", .artist), try wish("beyonce", .artist))
        XCTAssertNotEqual(try wish("Beyoncé", .artist), try wish("Beyoncé", .title))
    }

    func testATrackIsIdentifiedByItsFoldedArtistAndTitle() {
        XCTAssertEqual(WishIdentity.of(artist: "КИНО", title: "Звезда по имени Солнце", rawTitle: "x"), "кино - звезда по имени солнце")
        XCTAssertEqual(WishIdentity.of(artist: "Beyoncé", title: "Halo", rawTitle: nil), WishIdentity.of(artist: "beyonce", title: "HALO", rawTitle: nil))
        XCTAssertEqual(WishIdentity.of(artist: nil, title: nil, rawTitle: "Кино - Кукушка"), "кино - кукушка")
        XCTAssertNil(WishIdentity.of(artist: nil, title: nil, rawTitle: nil))
    }
}
