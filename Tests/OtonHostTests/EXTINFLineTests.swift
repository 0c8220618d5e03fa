import XCTest

@testable import OtonMedia

/// The `#EXTINF` reading behind HLS segment titles (issue 39 §3) and M3U entry titles.
final class EXTINFLineTests: XCTestCase {
    func testPlainTitleAttributesAndQuotedCommas() {
        XCTAssertEqual(EXTINFLine.text("#EXTINF:-1 tvg-name=\"a,b\",Title"), "Title")
        XCTAssertEqual(EXTINFLine.track("#EXTINF:2.0,Artist - Title")?.title, "Artist - Title")
        XCTAssertNil(EXTINFLine.track("#EXTINF:2.0,")?.title)
        let attributed = EXTINFLine.track("#EXTINF:10,title=\"Song, One\",artist=\"Band\",url=\"x\"")
        XCTAssertEqual(attributed?.title, "Song, One")
        XCTAssertEqual(attributed?.artist, "Band")
        // `subtitle="…"` is not `title="…"`.
        XCTAssertEqual(EXTINFLine.track("#EXTINF:10,subtitle=\"No\"")?.title, "subtitle=\"No\"")
        XCTAssertEqual(EXTINFLine.text("#EXTINF:1," + String(repeating: "x", count: 2000))?.count, 512)
    }

    func testSegmentTitlesAreKeptByResolvedURLAndBounded() {
        let base = "http://127.0.0.1:9/extinf-test/live.m3u8"
        HLSSegmentTitles.remember(playlist: "#EXTM3U\n#EXTINF:1.0,A - B\nseg/1.ts\nseg/2.ts\n#EXTINF:1.0,title=\"C\"\nhttp://other/3.ts\n", url: base)
        XCTAssertEqual(HLSSegmentTitles.title(forSegment: "http://127.0.0.1:9/extinf-test/seg/1.ts")?.title, "A - B")
        XCTAssertNil(HLSSegmentTitles.title(forSegment: "http://127.0.0.1:9/extinf-test/seg/2.ts"), "no #EXTINF title before it")
        XCTAssertEqual(HLSSegmentTitles.title(forSegment: "http://other/3.ts")?.title, "C")
        let many = (0..<(HLSSegmentTitles.capacity + 10)).map { "#EXTINF:1,T\($0)\nmany/\($0).ts" }.joined(separator: "\n")
        HLSSegmentTitles.remember(playlist: "#EXTM3U\n" + many, url: base)
        XCTAssertNil(HLSSegmentTitles.title(forSegment: "http://127.0.0.1:9/extinf-test/seg/1.ts"), "the oldest are forgotten past the capacity")
        XCTAssertEqual(
            HLSSegmentTitles.title(forSegment: "http://127.0.0.1:9/extinf-test/many/\(HLSSegmentTitles.capacity + 9).ts")?.title,
            "T\(HLSSegmentTitles.capacity + 9)")
    }
}
