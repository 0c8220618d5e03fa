import ShareLogic
import XCTest

final class ShareTemplateTests: XCTestCase {
    private let values = ["artist": "Кюннэй", "title": "Сахам сирэ", "station": "Oton FM", "station_url": "https://example.org/oton"]

    func testStandardTemplate() {
        XCTAssertEqual(ShareTemplate().render(values), "Кюннэй – Сахам сирэ · Oton FM https://example.org/oton")
    }

    func testMissingValuesTakeTheirSeparatorsWithThem() {
        var noArtist = values
        noArtist["artist"] = nil
        XCTAssertEqual(ShareTemplate().render(noArtist), "Сахам сирэ · Oton FM https://example.org/oton")
        XCTAssertEqual(ShareTemplate().render(["title": "Song"]), "Song")
        XCTAssertEqual(ShareTemplate("Now on {station}: {artist} - {title}!").render(["station": "X", "title": "T"]), "Now on X: T!")
        XCTAssertEqual(ShareTemplate("{title} | {station}").render(["title": "T", "station": " "]), "T")
    }

    func testUnknownPlaceholdersVanishAndLiteralBracesStay() {
        XCTAssertEqual(ShareTemplate("{title} {nope}").render(["title": "T"]), "T")
        XCTAssertEqual(ShareTemplate("{title} {unclosed").render(["title": "T"]), "T {unclosed")
    }
}

final class ShareLinkTests: XCTestCase {
    func testPercentEncodingCoversCyrillicAmpersandHashAndQuotes() {
        XCTAssertEqual(
            ShareLinks.percentEncoded("AC/DC & \"Friends\" #1 ёж's"),
            "AC%2FDC%20%26%20%22Friends%22%20%231%20%D1%91%D0%B6%27s")
        XCTAssertEqual(ShareLinks.percentEncoded("a-b_c.d~e"), "a-b_c.d~e")
    }

    func testServiceLinksPutTheEncodedQueryInPlace() {
        let query = ShareLinks.query(artist: "Кюннэй", title: "Сахам & сирэ", rawTitle: nil)!
        XCTAssertEqual(query, "Кюннэй Сахам & сирэ")
        let youtube = ShareService.defaults.first { $0.name == "YouTube Music" }!
        XCTAssertEqual(
            youtube.link(for: query),
            "https://music.youtube.com/search?q=%D0%9A%D1%8E%D0%BD%D0%BD%D1%8D%D0%B9%20%D0%A1%D0%B0%D1%85%D0%B0%D0%BC%20%26%20%D1%81%D0%B8%D1%80%D1%8D")
        let decoded = URLComponents(string: youtube.link(for: query))?.queryItems?.first?.value
        XCTAssertEqual(decoded, query, "a URL parser gets the exact query back")
        let spotify = ShareService.defaults.first { $0.name == "Spotify" }!
        XCTAssertFalse(spotify.link(for: "a/b #c").contains("/b"), "a slash in a path segment is encoded")
    }

    func testQueryFallsBackToTheRawTitle() {
        XCTAssertEqual(ShareLinks.query(artist: nil, title: nil, rawTitle: "Jingle"), "Jingle")
        XCTAssertNil(ShareLinks.query(artist: nil, title: "", rawTitle: ""))
    }
}
