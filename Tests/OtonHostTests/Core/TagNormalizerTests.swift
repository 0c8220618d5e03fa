import XCTest

@testable import OtonHost

final class TagNormalizerTests: XCTestCase {
    private let normalizer = TagNormalizer()

    private func normalize(_ title: String, artist: String? = nil) -> NormalizedTitle {
        normalizer.normalize(title: Array(title.utf8), artist: artist.map { Array($0.utf8) })
    }

    // MARK: Splitting

    func testSplitsArtistAndTitle() {
        XCTAssertEqual(
            normalize("Daft Punk - One More Time"),
            NormalizedTitle(title: "One More Time", artist: "Daft Punk", raw: "Daft Punk - One More Time"))
    }

    func testSplitsOnFirstSeparatorOnly() {
        let result = normalize("Artist - Title - Extended Mix")
        XCTAssertEqual(result.artist, "Artist")
        XCTAssertEqual(result.title, "Title - Extended Mix")
    }

    func testSplitsOnEnDash() {
        XCTAssertEqual(normalize("Земфира – Искала").artist, "Земфира")
        XCTAssertEqual(normalize("Земфира – Искала").title, "Искала")
    }

    func testSplitsOnEmDash() {
        let result = normalize("Artist — Title")
        XCTAssertEqual(result.artist, "Artist")
        XCTAssertEqual(result.title, "Title")
    }

    func testEarliestSeparatorWinsAcrossDashKinds() {
        let result = normalize("A — B - C")
        XCTAssertEqual(result.artist, "A")
        XCTAssertEqual(result.title, "B - C")
    }

    func testHyphenWithoutSpacesDoesNotSplit() {
        XCTAssertEqual(normalize("Jay-Z"), NormalizedTitle(title: "Jay-Z", artist: nil, raw: "Jay-Z"))
        XCTAssertEqual(normalize("Би-2 - Полковник").artist, "Би-2")
    }

    func testArtistWithTrailingSeparatorBecomesTitle() {
        XCTAssertEqual(normalize("Artist - "), NormalizedTitle(title: "Artist", artist: nil, raw: "Artist -"))
    }

    func testLeadingSeparatorGivesTitleOnly() {
        XCTAssertEqual(normalize(" - Title"), NormalizedTitle(title: "Title", artist: nil, raw: "- Title"))
    }

    func testLoneDashIsEmpty() {
        XCTAssertEqual(normalize("-"), NormalizedTitle(title: "", artist: nil, raw: "-"))
        XCTAssertTrue(normalize("-").isEmpty)
    }

    func testSpacedDashIsEmpty() {
        XCTAssertTrue(normalize(" - ").isEmpty)
        XCTAssertTrue(normalize(" – ").isEmpty)
        XCTAssertTrue(normalize("—").isEmpty)
        XCTAssertTrue(normalize("- -").isEmpty)
    }

    func testEmptyStringIsEmpty() {
        XCTAssertEqual(normalize(""), .empty)
    }

    func testWhitespaceOnlyIsEmpty() {
        XCTAssertEqual(normalize(" \t\n "), .empty)
    }

    func testDashOnlyArtistHalfIsIgnored() {
        XCTAssertEqual(normalize("- - Title"), NormalizedTitle(title: "Title", artist: nil, raw: "- - Title"))
    }

    func testSeparatorAfterWhitespaceCollapse() {
        let result = normalize("Artist \t -   Title")
        XCTAssertEqual(result, NormalizedTitle(title: "Title", artist: "Artist", raw: "Artist - Title"))
    }

    func testTitleWithoutSeparator() {
        XCTAssertEqual(normalize("Radio Jingle"), NormalizedTitle(title: "Radio Jingle", artist: nil, raw: "Radio Jingle"))
    }

    // MARK: Explicit artist

    func testExplicitArtistWinsOverSplitting() {
        XCTAssertEqual(
            normalize("Intro - Live", artist: "Band"),
            NormalizedTitle(title: "Intro - Live", artist: "Band", raw: "Intro - Live"))
    }

    func testExplicitArtistPrefixIsRemovedFromTitle() {
        XCTAssertEqual(
            normalize("band - Song", artist: "Band"),
            NormalizedTitle(title: "Song", artist: "Band", raw: "band - Song"))
    }

    func testEmptyExplicitArtistFallsBackToSplitting() {
        XCTAssertEqual(normalize("A - B", artist: "  ").artist, "A")
        XCTAssertEqual(normalize("A - B", artist: "-").artist, "A")
    }

    func testExplicitArtistWithEmptyTitleBecomesTitle() {
        XCTAssertEqual(normalize("", artist: "Band"), NormalizedTitle(title: "Band", artist: nil, raw: ""))
        XCTAssertEqual(normalize("Band", artist: "Band"), NormalizedTitle(title: "Band", artist: nil, raw: "Band"))
    }

    func testExplicitArtistBytesAreDecodedToo() {
        let artist: [UInt8] = [0xCA, 0xE8, 0xED, 0xEE]  // "Кино" in Windows-1251
        let result = normalizer.normalize(title: Array("Группа крови".utf8), artist: artist)
        XCTAssertEqual(result.artist, "Кино")
    }

    // MARK: Cleaning

    func testStripsC0ControlsAndDEL() {
        XCTAssertEqual(normalizer.clean("A\u{01}B\u{7F}C\u{1B}[31m"), "ABC[31m")
    }

    func testStripsC1Controls() {
        XCTAssertEqual(normalizer.clean("A\u{80}B\u{9F}C"), "ABC")
    }

    func testLineBreaksAndTabsBecomeSpaces() {
        XCTAssertEqual(normalizer.clean("Artist\nTitle\tX\r\nY"), "Artist Title X Y")
    }

    func testCollapsesAndTrimsWhitespaceIncludingNBSP() {
        XCTAssertEqual(normalizer.clean("  A \u{A0}\u{2003} B  \u{2028}"), "A B")
    }

    func testRemovesBidiOverridesAndInvisibleCharacters() {
        XCTAssertEqual(normalizer.clean("\u{FEFF}evil\u{202E}txt.exe\u{2066}\u{200B}"), "eviltxt.exe")
    }

    func testKeepsEmojiSequences() {
        let family = "👨‍👩‍👧 Family"
        XCTAssertEqual(normalizer.clean(family), family)
    }

    func testEmbeddedNULsAreRemoved() {
        let bytes: [UInt8] = Array("Art".utf8) + [0] + Array("ist - Ti".utf8) + [0, 0] + Array("tle".utf8) + [0, 0, 0]
        XCTAssertEqual(
            normalizer.normalize(title: bytes),
            NormalizedTitle(title: "Title", artist: "Artist", raw: "Artist - Title"))
    }

    func testCapsAt512CharactersWithEllipsis() {
        let result = normalizer.clean(String(repeating: "a", count: 600))
        XCTAssertEqual(result.count, 512)
        XCTAssertTrue(result.hasSuffix("…"))
    }

    func testExactly512CharactersAreNotCut() {
        let text = String(repeating: "b", count: 512)
        XCTAssertEqual(normalizer.clean(text), text)
    }

    func testCapIsGraphemeSafe() {
        let flag = "🇺🇦"
        let combining = "e\u{301}"
        let text = String(repeating: flag + combining, count: 400)
        let result = normalizer.clean(text)
        XCTAssertEqual(result.count, 512)
        let body = result.dropLast()
        XCTAssertTrue(body.allSatisfy { $0 == Character(flag) || $0 == Character(combining) })
    }

    func testCapDoesNotLeaveSpaceBeforeEllipsis() {
        let text = String(repeating: "a", count: 510) + " bbbbbbbb"
        XCTAssertTrue(normalizer.clean(text).hasSuffix("a…"))
    }

    func test4KiBTitle() {
        let text = "Artist - " + String(repeating: "x", count: 4096 - 9)
        let result = normalize(text)
        XCTAssertEqual(result.artist, "Artist")
        XCTAssertEqual(result.raw.count, 512)
        XCTAssertEqual(result.title.count, 512 - 9)
    }

    func testCustomCap() {
        XCTAssertEqual(TagNormalizer(maxCharacters: 5).clean("abcdefgh"), "abcd…")
        XCTAssertEqual(TagNormalizer(maxCharacters: 0).maxCharacters, 1)
    }

    // MARK: Decoding through normalize

    func testWindows1251TitleIsDecodedAndSplit() {
        let bytes = Array("Кино - Звезда по имени Солнце".data(using: .windowsCP1251)!)
        XCTAssertEqual(normalizer.normalize(title: bytes).artist, "Кино")
        XCTAssertEqual(normalizer.normalize(title: bytes).title, "Звезда по имени Солнце")
    }

    func testLoneSurrogateBytesAreHandled() {
        let result = normalizer.normalize(title: Array("Artist - Song ".utf8) + [0xED, 0xA0, 0x80] + Array("ü".utf8))
        XCTAssertEqual(result.artist, "Artist")
        XCTAssertEqual(result.title, "Song ü")
    }

    func testOverlongEncodingsAreHandled() {
        let result = normalizer.normalize(title: [0xC0, 0xAF, 0x2E, 0x2E, 0xC0, 0xAF, 0x65, 0x74, 0x63])
        XCTAssertFalse(result.raw.contains("/"))
        XCTAssertFalse(result.raw.isEmpty)
    }

    func testGarbageNeverProducesControlCharacters() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 0..<600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let result = normalizer.normalize(title: bytes, artist: bytes)
            for text in [result.title, result.raw, result.artist ?? ""] {
                XCTAssertLessThanOrEqual(text.count, 512)
                XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
                XCTAssertEqual(text, text.trimmingSpaces())
                XCTAssertFalse(text.contains("  "))
            }
            if result.title.isEmpty { XCTAssertNil(result.artist) }
        }
    }

    func testStringOverloadSkipsDecoding() {
        XCTAssertEqual(normalizer.normalize(title: "  A -  B "), NormalizedTitle(title: "B", artist: "A", raw: "A - B"))
    }
}

final class CharacterReferenceTests: XCTestCase {
    func testIcecastEntitiesAndNamedReferencesAreDecoded() {
        let normalizer = TagNormalizer()
        XCTAssertEqual(normalizer.normalize(title: "&#1050;&#1102;&#1085;&#1085;&#1101;&#1081; - Song &amp; Dance", artist: nil).artist, "Кюннэй")
        XCTAssertEqual(normalizer.normalize(title: "&#1050;&#1102;&#1085;&#1085;&#1101;&#1081; - Song &amp; Dance", artist: nil).title, "Song & Dance")
        XCTAssertEqual(normalizer.clean("Rock &#x26; Roll &quot;Live&quot;"), "Rock & Roll \"Live\"")
    }

    func testMalformedOrDangerousReferencesStayText() {
        let normalizer = TagNormalizer()
        XCTAssertEqual(normalizer.clean("AT&T"), "AT&T")
        XCTAssertEqual(normalizer.clean("a &unknown; b"), "a &unknown; b")
        XCTAssertEqual(normalizer.clean("bell&#7;"), "bell&#7;", "a control character is not produced")
        XCTAssertEqual(normalizer.clean("&#99999999999;"), "&#99999999999;")
        XCTAssertEqual(normalizer.clean("&#xD800;"), "&#xD800;", "no surrogates")
        XCTAssertEqual(normalizer.clean("&&#38;&"), "&&&")
    }
}
