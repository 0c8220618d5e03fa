import Foundation
import XCTest

@testable import OtonHost

/// The one rule for `sequence`: a new number if and only if the heard track changed (title, artist, or a break).
final class TrackSequenceTests: XCTestCase {
    private let artwork = URL(string: "https://img.example.com/a.jpg")!

    private func sequences(_ sets: [TagSet], stationNames: [String] = []) -> [UInt64?] {
        var accumulator = TrackAccumulator()
        accumulator.stationNames = stationNames
        return sets.map { accumulator.apply($0)?.sequence }
    }

    func testNewTitleNewArtistAndBreakEachTakeTheNextNumber() {
        XCTAssertEqual(
            sequences([
                TagSet(station: "Oton FM"),  // the station before any title: no track yet
                TagSet(title: "A - One"),
                TagSet(title: "B - One"),  // another artist
                TagSet(title: "B - Two"),  // another title
                TagSet(title: ""),  // a break
                TagSet(title: "B - Two"),  // the same song again after the break is heard anew
            ]), [0, 1, 2, 3, 4, 5])
    }

    func testWhatArrivesLaterKeepsTheNumber() {
        XCTAssertEqual(
            sequences([
                TagSet(title: "A - One"),
                TagSet(station: "Oton FM"),
                TagSet(artworkURL: artwork),
                TagSet(status: StationStatus(title: "A - One", artworkURL: artwork, logoURL: artwork)),
                TagSet(bitrate: 128_000),  // not visible: no event at all
                TagSet(title: "A - One"),
            ]), [1, 1, 1, 1, nil, nil])
    }

    func testABreakRepeatedOrChangingPlaceholderStaysOneBreak() {
        XCTAssertEqual(
            sequences([
                TagSet(title: "A - One"),
                TagSet(title: ""),
                TagSet(title: "-"),
                TagSet(title: "Unknown - Unknown"),
                TagSet(title: "A - Two"),
            ]), [1, 2, nil, nil, 3])
    }

    func testPlaceholdersAreBreaks() {
        for placeholder in [
            "", "-", " - ", "Unknown", "unknown - UNKNOWN", "Unknown Artist - Unknown Title", "oton  fm", "Configured Name",
            "Untitled", "UNKNOWN ARTIST - untitled", "N/A", "n/a - -",
        ] {
            var accumulator = TrackAccumulator()
            accumulator.stationNames = ["Configured Name"]
            _ = accumulator.apply(TagSet(title: "A - One", station: "Oton FM"))
            let report = accumulator.apply(TagSet(title: placeholder))
            XCTAssertEqual(report?.track.isBreak, true, "\"\(placeholder)\" is a break")
            XCTAssertEqual(report?.sequence, 2, placeholder)
            XCTAssertNil(report?.track.title, placeholder)
            XCTAssertEqual(report?.track.station, "Oton FM", "the station stays during a break")
        }
    }

    func testTitlesThatOnlyContainAPlaceholderAreTracks() {
        var accumulator = TrackAccumulator()
        _ = accumulator.apply(TagSet(title: "A - One", station: "Oton FM"))
        for title in [
            "Unknown Pleasures", "Oton FM - Morning Show", "The Unknown - Song", "Unknown - Time", "Pink Floyd - Unknown",
            "Untitled Love Song",
        ] {
            let report = accumulator.apply(TagSet(title: title))
            XCTAssertEqual(report?.track.isBreak, false, title)
            XCTAssertNotNil(report?.track.title, title)
        }
    }

    func testAPlaceholderBeforeAnyTrackIsNoTrackAndNoBreak() {
        var accumulator = TrackAccumulator()
        let report = accumulator.apply(TagSet(title: "Oton FM", station: "Oton FM"))
        XCTAssertEqual(report?.track.isBreak, false)
        XCTAssertNil(report?.track.title, "the station's name is not a song")
        XCTAssertEqual(report?.sequence, 0)
        XCTAssertEqual(accumulator.apply(TagSet(title: "A - One"))?.sequence, 1)
    }

    func testABreakHidesTheStatusTitleAndArtwork() {
        var accumulator = TrackAccumulator()
        _ = accumulator.apply(TagSet(title: "A - One"))
        _ = accumulator.apply(TagSet(status: StationStatus(title: "A - One", artworkURL: artwork)))
        let breakReport = accumulator.apply(TagSet(title: ""))
        XCTAssertNil(breakReport?.track.artworkURL)
        XCTAssertNil(
            accumulator.apply(TagSet(status: StationStatus(title: "A - One", artworkURL: artwork))),
            "a lagging status answer does not bring the old song back during the break")
        XCTAssertEqual(accumulator.current.isBreak, true)
    }

    func testNumbersSurviveReconnectsAndTheBreakIsNotRepeated() {
        var accumulator = TrackAccumulator()
        _ = accumulator.apply(TagSet(title: "A - One"))
        XCTAssertEqual(accumulator.apply(TagSet(title: ""))?.sequence, 2)
        accumulator.reset(keepStation: true)
        _ = accumulator.apply(TagSet(station: "Oton FM"))
        let again = accumulator.apply(TagSet(title: ""))
        XCTAssertEqual(again?.track.isBreak, true, "still in the break after the reconnect")
        XCTAssertEqual(again?.sequence, 2, "the same break")
        XCTAssertEqual(accumulator.current.isBreak, true)
        accumulator.reset(keepStation: false)
        XCTAssertEqual(accumulator.apply(TagSet(title: "A - One"))?.sequence, 3, "numbers never go back")
    }

    func testAnotherStationEndsTheTrackAtOnceUnderANewNumber() {
        var accumulator = TrackAccumulator(streamURL: URL(string: "http://lab/mp3"))
        accumulator.stationNames = ["Lab MP3"]
        _ = accumulator.apply(TagSet(title: "Кино - Группа крови", station: "Lab MP3 FM", bitrate: 128_000, codec: "MPEG-1 Layer 3 (MP3)"))
        let switched = accumulator.changeStation(streamURL: URL(string: "http://lab/ogg"), stationNames: ["Lab Ogg"])
        XCTAssertEqual(switched.sequence, 2, "the old song ended: a new number before the new station says anything")
        XCTAssertEqual(
            switched.track, TrackInfo(streamURL: URL(string: "http://lab/ogg")),
            "no title, artist, station name, codec or bitrate of the old station")
        XCTAssertEqual(accumulator.stationNames, ["Lab Ogg"])
        XCTAssertNil(accumulator.apply(TagSet(bitrate: 112_000)), "a bitrate alone stays silent")
        XCTAssertEqual(
            accumulator.apply(TagSet(bitrate: 112_000, codec: "Vorbis"))?.sequence, 2,
            "the new stream's codec is reported (a titleless station has no other event to carry it) and keeps the number")
        XCTAssertEqual(accumulator.apply(TagSet(station: "Lab Ogg FM"))?.sequence, 2, "the station's name keeps the number")
        XCTAssertEqual(
            accumulator.apply(TagSet(title: "Кино - Группа крови"))?.sequence, 3,
            "the same song on the new station is heard anew")
        XCTAssertEqual(accumulator.changeStation(streamURL: nil, stationNames: []).sequence, 4)
        XCTAssertEqual(
            accumulator.changeStation(streamURL: nil, stationNames: []).sequence, 5,
            "leaving a station that named nothing is a change too")
    }
}
