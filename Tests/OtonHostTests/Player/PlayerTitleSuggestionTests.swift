import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// A plugin's title suggestion (org.oton.title.suggested, the song recognition plugin's) as the
/// Player takes it: the track's title with title_source recognised, only for the station it was made
/// for, withdrawn by an empty title, and never over the stream's own title.
final class PlayerTitleSuggestionTests: XCTestCase {
    private func suggest(_ harness: PlayerLogicHarness, station: String, title: String, artist: String? = nil) {
        let kind = harness.bus.registry.kind(for: OTON_EVENT_NAME_TITLE_SUGGESTED)!
        var fields = [(key: OTON_FIELD_STATION, value: station), (key: OTON_FIELD_TITLE, value: title), (key: OTON_FIELD_TITLE_SOURCE, value: "recognised")]
        if let artist { fields.append((OTON_FIELD_ARTIST, artist)) }
        harness.bus.publish(BusEvent(kind: kind, name: OTON_EVENT_NAME_TITLE_SUGGESTED, source: "org.oton.recognition", extraFields: fields))
    }

    private func track(_ harness: PlayerLogicHarness, where predicate: @escaping (BusEvent) -> Bool) -> BusEvent? {
        harness.events.wait(for: "track", timeout: 30, where: predicate)
    }

    func testASuggestionIsShownAsRecognisedForItsStationOnlyAndTheStreamTitleWins() throws {
        let harness = PlayerLogicHarness()
        harness.start()
        harness.play()
        harness.report(.tags(TagSet(station: "Alpha FM", codec: "MPEG-1 Layer 3 (MP3)"), monotonicNanoseconds: 0))
        XCTAssertEqual(harness.bus.current(OTON_EVENT_TRACK)?.event.field(OTON_FIELD_STATION), "Alpha FM")

        // For another station (made before a switch): ignored. Then one for this station: shown.
        suggest(harness, station: "Other FM", title: "Wrong Song")
        suggest(harness, station: "Alpha FM", title: "Melody", artist: "Band")
        let shown = try XCTUnwrap(track(harness) { $0.field(OTON_FIELD_TITLE) == "Melody" })
        XCTAssertEqual(shown.field(OTON_FIELD_ARTIST), "Band")
        XCTAssertEqual(shown.field(OTON_FIELD_TITLE_SOURCE), "recognised")
        XCTAssertFalse(
            harness.events.events.contains { $0.name == "track" && $0.field(OTON_FIELD_TITLE) == "Wrong Song" }, "a suggestion for another station was shown")

        // Withdrawn: the title goes.
        suggest(harness, station: "Alpha FM", title: "")
        XCTAssertNotNil(track(harness) { $0.field(OTON_FIELD_TITLE) == nil && $0.field(OTON_FIELD_STATION) == "Alpha FM" })

        // The stream names a song: its title replaces the recognised one (the accumulator keeps it first after:
        // TrackAccumulatorTests).
        suggest(harness, station: "Alpha FM", title: "Melody", artist: "Band")
        XCTAssertNotNil(track(harness) { $0.field(OTON_FIELD_TITLE) == "Melody" && $0.monotonicNanoseconds > shown.monotonicNanoseconds })
        harness.report(.tags(TagSet(title: "Stream Song"), monotonicNanoseconds: 0))
        XCTAssertEqual(harness.bus.current(OTON_EVENT_TRACK)?.event.field(OTON_FIELD_TITLE), "Stream Song")
        XCTAssertEqual(harness.bus.current(OTON_EVENT_TRACK)?.event.field(OTON_FIELD_TITLE_SOURCE), "stream")
    }
}
