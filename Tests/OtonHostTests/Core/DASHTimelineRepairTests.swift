import OtonMedia
import XCTest

@testable import OtonHost

/// DASHTimelineRepair: the placeholder segment that keeps GStreamer 1.22's dashdemux in place in a live
/// MPD whose window has slid (issue 39 §3). HLSShapesTests.testLiveDASHFromFFmpegPlaysAndRecordsPastItsWindow
/// shows the demuxer itself on ffmpeg's manifests.
final class DASHTimelineRepairTests: XCTestCase {
    /// ffmpeg's `-f dash -window_size 6` after its window slid, as the fixture serves it.
    static func ffmpegManifest(type: String = "dynamic", firstT: String = "711680", startNumber: String = #" startNumber="9""#) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011"
        \ttype="\(type)" minimumUpdatePeriod="PT2S" availabilityStartTime="2026-11-27T15:40:17.608Z">
        \t<!-- <SegmentTimeline><S t="5"/></SegmentTimeline> in a comment is not a timeline -->
        \t<Period id="0" start="PT0.0S">
        \t\t<AdaptationSet id="0" contentType="audio">
        \t\t\t<Representation id="0" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="64000">
        \t\t\t\t<SegmentTemplate timescale="44100" initialization="seg/init-$RepresentationID$.m4s" media="seg/chunk-$RepresentationID$-$Number%05d$.m4s"\(startNumber)>
        \t\t\t\t\t<SegmentTimeline>
        \t\t\t\t\t\t<S t="\(firstT)" d="89088" r="5" />
        \t\t\t\t\t</SegmentTimeline>
        \t\t\t\t</SegmentTemplate>
        \t\t\t</Representation>
        \t\t</AdaptationSet>
        \t</Period>
        </MPD>
        """
    }

    private func repaired(_ text: String) -> String? {
        DASHTimelineRepair.repaired(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    func testASlidWindowGetsAPlaceholderFromZeroAndItsNumbersKeepTheirSegments() throws {
        let original = Self.ffmpegManifest()
        let fixed = try XCTUnwrap(repaired(original), "a slid window is repaired")
        // One placeholder from 0 to the first real segment, numbered one below it: segment 9 is still at 711680.
        XCTAssertTrue(fixed.contains(#"<SegmentTimeline><S t="0" d="711680"/>"#), fixed)
        XCTAssertTrue(fixed.contains(#" startNumber="8">"#), fixed)
        // Nothing else changed, byte for byte.
        let expected = original.replacingOccurrences(of: "<SegmentTimeline>\n", with: "<SegmentTimeline><S t=\"0\" d=\"711680\"/>\n")
            .replacingOccurrences(of: #" startNumber="9""#, with: #" startNumber="8""#)
        XCTAssertEqual(fixed, expected)
        // The comment's timeline is left alone.
        XCTAssertTrue(fixed.contains(#"<!-- <SegmentTimeline><S t="5"/></SegmentTimeline> in a comment"#), fixed)
        // Repairing again changes nothing more: the timeline now starts at 0.
        XCTAssertNil(repaired(fixed))
    }

    func testAWindowThatHasNotSlidAStaticManifestAndOtherXMLStayAsTheyAre() {
        XCTAssertNil(repaired(Self.ffmpegManifest(firstT: "0")), "a timeline from 0 needs nothing")
        XCTAssertNil(repaired(Self.ffmpegManifest(type: "static")), "on demand plays from its start, where a placeholder would be fetched")
        XCTAssertNil(repaired("<html><body>404</body></html>"))
        XCTAssertNil(repaired("<?xml version=\"1.0\"?><rss><channel/></rss>"))
        XCTAssertNil(repaired(""))
    }

    func testWithoutAStartNumberTheDefaultOneBecomesZero() throws {
        let fixed = try XCTUnwrap(repaired(Self.ffmpegManifest(startNumber: "")))
        XCTAssertTrue(fixed.contains(#"<SegmentTemplate startNumber="0" timescale="44100""#), fixed)
    }

    func testThePlaceholderStartsWhereThePeriodDoesOnTheMediaTimeline() throws {
        // Period at 10 s, presentationTimeOffset 1,000,000 at 1000/s: the Period begins at media time 990,000.
        let text = """
            <MPD type="dynamic"><Period start="PT10S"><AdaptationSet><Representation>
            <SegmentTemplate timescale="1000" presentationTimeOffset="1000000" startNumber="100" media="$Number$.m4s">
            <SegmentTimeline><S t="1200000" d="2000" r="3"/><S d="1000"/></SegmentTimeline>
            </SegmentTemplate></Representation></AdaptationSet></Period></MPD>
            """
        let fixed = try XCTUnwrap(repaired(text))
        XCTAssertTrue(fixed.contains(#"<SegmentTimeline><S t="990000" d="210000"/><S t="1200000""#), fixed)
        XCTAssertTrue(fixed.contains(#"startNumber="99""#), fixed)
    }

    func testWhatCannotBeKnownSafelyIsLeftAlone() {
        // startNumber inherited from the AdaptationSet's template: changing it here would renumber.
        let inherited = """
            <MPD type="dynamic"><Period><AdaptationSet><SegmentTemplate startNumber="5"/><Representation>
            <SegmentTemplate timescale="1000" media="$Number$.m4s"><SegmentTimeline><S t="9000" d="1000"/></SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet></Period></MPD>
            """
        XCTAssertNil(repaired(inherited))
        // The timeline in the AdaptationSet's template, a Representation's own template overriding its numbers.
        let overridden = """
            <MPD type="dynamic"><Period><AdaptationSet>
            <SegmentTemplate timescale="1000" startNumber="5"><SegmentTimeline><S t="9000" d="1000"/></SegmentTimeline></SegmentTemplate>
            <Representation><SegmentTemplate startNumber="7"/></Representation></AdaptationSet></Period></MPD>
            """
        XCTAssertNil(repaired(overridden))
        // The same without the override is repaired.
        XCTAssertNotNil(repaired(overridden.replacingOccurrences(of: #"<SegmentTemplate startNumber="7"/>"#, with: "")))
        // Numbers cannot go below 0.
        XCTAssertNil(repaired(Self.ffmpegManifest(startNumber: #" startNumber="0""#)))
        // A Period that begins after its first segment's media time (PTO < PeriodStart·timescale).
        XCTAssertNil(
            repaired(
                """
                <MPD type="dynamic"><Period start="PT100S"><AdaptationSet><Representation><SegmentTemplate timescale="1">
                <SegmentTimeline><S t="150" d="2"/></SegmentTimeline></SegmentTemplate></Representation></AdaptationSet></Period></MPD>
                """))
    }

    func testDurationsOfPeriods() {
        XCTAssertEqual(DASHTimelineRepair.seconds(ofDuration: "PT0.0S"), 0)
        XCTAssertEqual(DASHTimelineRepair.seconds(ofDuration: "PT1H2M3.5S"), 3723.5)
        XCTAssertEqual(DASHTimelineRepair.seconds(ofDuration: "P1DT2H"), 93_600)
        XCTAssertNil(DASHTimelineRepair.seconds(ofDuration: "P1Y"))
        XCTAssertNil(DASHTimelineRepair.seconds(ofDuration: "PT"))
        XCTAssertNil(DASHTimelineRepair.seconds(ofDuration: "10s"))
    }
}
