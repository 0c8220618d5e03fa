import Foundation
import XCTest
@testable import OtonHost

final class TrackAccumulatorTests: XCTestCase {
    private let streamURL = URL(string: "https://example.com/live.mp3")!
    private let artwork = URL(string: "https://img.example.com/a.jpg")!

    private func makeAccumulator() -> TrackAccumulator {
        TrackAccumulator(streamURL: streamURL)
    }

    func testSixtyBitrateOnlyMessagesProduceNoEvents() {
        var accumulator = makeAccumulator()
        let events = (0..<60).compactMap { second in
            accumulator.apply(TagSet(bitrate: 128_000 + second * 100))
        }
        XCTAssertTrue(events.isEmpty)
        XCTAssertEqual(accumulator.current.bitrate, 128_000 + 59 * 100)
    }

    func testBitrateOnlyAfterATitleProducesNoEvents() {
        var accumulator = makeAccumulator()
        XCTAssertNotNil(accumulator.apply(TagSet(title: "A - B")))
        for second in 0..<60 {
            XCTAssertNil(accumulator.apply(TagSet(bitrate: 96_000 + second, nominalBitrate: 128_000)))
        }
    }

    func testTitleChangeProducesExactlyOneEvent() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(title: "Daft Punk - One More Time"))
        XCTAssertEqual(event, TrackInfo(title: "One More Time", artist: "Daft Punk", rawTitle: "Daft Punk - One More Time",
                                        streamURL: streamURL))
        let next = accumulator.apply(TagSet(title: "Air - Sexy Boy"))
        XCTAssertEqual(next?.title, "Sexy Boy")
        XCTAssertEqual(next?.artist, "Air")
    }

    func testSameTitleAgainProducesNoEvent() {
        var accumulator = makeAccumulator()
        XCTAssertNotNil(accumulator.apply(TagSet(title: "A - B")))
        XCTAssertNil(accumulator.apply(TagSet(title: "A - B")))
        XCTAssertNil(accumulator.apply(TagSet(title: "  A  -  B\n")))
    }

    func testCodecAndBitrateAreCarriedIntoTheNextEvent() {
        var accumulator = makeAccumulator()
        XCTAssertNotNil(accumulator.apply(TagSet(title: "A - B")))
        XCTAssertNil(accumulator.apply(TagSet(bitrate: 192_000, codec: "MPEG-1 Layer 3 (MP3)")))
        let event = accumulator.apply(TagSet(title: "C - D"))
        XCTAssertEqual(event?.codec, "MPEG-1 Layer 3 (MP3)")
        XCTAssertEqual(event?.bitrate, 192_000)
    }

    func testNominalBitrateWinsOverMeasured() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(nominalBitrate: 128_000))
        _ = accumulator.apply(TagSet(bitrate: 131_072))
        XCTAssertEqual(accumulator.current.bitrate, 128_000)
    }

    func testNonPositiveBitrateIsIgnored() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(bitrate: 64_000))
        _ = accumulator.apply(TagSet(bitrate: 0))
        _ = accumulator.apply(TagSet(bitrate: -1))
        XCTAssertEqual(accumulator.current.bitrate, 64_000)
    }

    func testStationIsStickyAcrossLaterTagSets() {
        var accumulator = makeAccumulator()
        XCTAssertEqual(accumulator.apply(TagSet(station: "Radio Paradise", genre: "Eclectic"))?.station, "Radio Paradise")
        let event = accumulator.apply(TagSet(title: "A - B"))
        XCTAssertEqual(event?.station, "Radio Paradise")
        XCTAssertEqual(event?.genre, "Eclectic")
    }

    func testStationChangeEmits() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(station: "One"))
        XCTAssertEqual(accumulator.apply(TagSet(station: "Two"))?.station, "Two")
        XCTAssertNil(accumulator.apply(TagSet(station: "Two")))
    }

    func testEmptyStationDoesNotClearIt() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(station: "One"))
        XCTAssertNil(accumulator.apply(TagSet(station: "  ")))
        XCTAssertEqual(accumulator.current.station, "One")
    }

    func testGenreAloneDoesNotEmit() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))
        XCTAssertNil(accumulator.apply(TagSet(genre: "Jazz")))
        XCTAssertEqual(accumulator.current.genre, "Jazz")
    }

    func testResetWithoutKeepingStationForgetsEverything() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B", station: "One", bitrate: 1))
        accumulator.reset(keepStation: false)
        XCTAssertEqual(accumulator.current, TrackInfo(streamURL: streamURL))
        XCTAssertEqual(accumulator.apply(TagSet(title: "A - B"))?.title, "B", "same song on a new station is reported")
    }

    func testResetKeepingStationKeepsItAndDoesNotRepeatTheSameSong() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B", station: "One"))
        accumulator.reset(keepStation: true)
        XCTAssertEqual(accumulator.current.station, "One")
        XCTAssertNil(accumulator.current.title)
        XCTAssertNil(accumulator.apply(TagSet(bitrate: 128_000)))
        XCTAssertNil(accumulator.apply(TagSet(title: "A - B")))
        XCTAssertEqual(accumulator.apply(TagSet(title: "C - D"))?.station, "One")
    }

    func testTitleFromStatusAPIWhenStreamHasNone() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(station: "Station"))
        let status = StationStatus(title: "Artist - Song", artworkURL: artwork)
        let event = accumulator.apply(TagSet(status: status))
        XCTAssertEqual(event?.title, "Song")
        XCTAssertEqual(event?.artist, "Artist")
        XCTAssertEqual(event?.artworkURL, artwork)
        XCTAssertEqual(event?.station, "Station")
    }

    func testStreamTitleWinsOverStatusTitle() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "Stream - Song"))
        let event = accumulator.apply(TagSet(status: StationStatus(title: "Status - Song", artworkURL: artwork)))
        XCTAssertEqual(event?.artist, "Stream", "artwork changed, title stays the stream's")
        XCTAssertEqual(event?.artworkURL, artwork)
    }

    func testClearedStreamTitleFallsBackToStatusTitle() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(status: StationStatus(title: "Status - Song")))
        _ = accumulator.apply(TagSet(title: "Stream - Song"))
        XCTAssertEqual(accumulator.apply(TagSet(title: " - "))?.artist, "Status")
    }

    func testArtworkChangeAloneEmits() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))
        XCTAssertEqual(accumulator.apply(TagSet(artworkURL: artwork))?.artworkURL, artwork)
    }

    func testStatusSnapshotReplacesArtworkEvenWithNil() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(status: StationStatus(title: "A - B", artworkURL: artwork)))
        let event = accumulator.apply(TagSet(status: StationStatus(title: "C - D")))
        XCTAssertNil(event?.artworkURL)
    }

    func testStatusLogoIsTheStationsNotTheTracksArtwork() {
        let logo = URL(string: "https://img.example.com/logo.png")!
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))
        let event = accumulator.apply(TagSet(status: StationStatus(title: "A - B", logoURL: logo)))
        XCTAssertNil(event?.artworkURL)
        XCTAssertEqual(event?.stationLogoURL, logo)
    }

    func testNewStreamTitleDropsThePreviousTracksStatusArtwork() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))
        XCTAssertEqual(accumulator.apply(TagSet(status: StationStatus(title: "A - B", artworkURL: artwork)))?.artworkURL, artwork)
        let next = accumulator.apply(TagSet(title: "C - D"))
        XCTAssertEqual(next?.title, "D")
        XCTAssertNil(next?.artworkURL, "the cover was A - B's")
    }

    func testUnchangedStatusSnapshotDoesNotEmit() {
        var accumulator = makeAccumulator()
        let status = StationStatus(title: "A - B", artworkURL: artwork, stationName: "S")
        XCTAssertNotNil(accumulator.apply(TagSet(status: status)))
        XCTAssertNil(accumulator.apply(TagSet(status: status)))
    }

    func testExplicitArtistTagWinsOverSplitting() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(title: "Intro - Live", artist: "Band"))
        XCTAssertEqual(event?.artist, "Band")
        XCTAssertEqual(event?.title, "Intro - Live")
    }

    func testArtistOnlyTagSetUpdatesCurrentTrack() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "Song"))
        let event = accumulator.apply(TagSet(artist: "Band"))
        XCTAssertEqual(event?.title, "Song")
        XCTAssertEqual(event?.artist, "Band")
    }

    func testNewTitleWithoutArtistDropsPreviousExplicitArtist() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "Song", artist: "Band"))
        let event = accumulator.apply(TagSet(title: "Other - Tune"))
        XCTAssertEqual(event?.artist, "Other")
        XCTAssertEqual(event?.title, "Tune")
    }

    func testEmptyTitleClearsTrack() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))
        let event = accumulator.apply(TagSet(title: "-"))
        XCTAssertNotNil(event)
        XCTAssertNil(event?.title)
        XCTAssertNil(event?.artist)
    }

    func testStationAndGenreAreCleaned() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(station: " My\u{0}Radio\n ", genre: "\tRock  Pop "))
        XCTAssertEqual(event?.station, "MyRadio")
        XCTAssertEqual(event?.genre, "Rock Pop")
    }

    func testHostileTitleIsCapped() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(title: String(repeating: "x", count: 100_000)))
        XCTAssertEqual(event?.title?.count, 512)
    }
}
