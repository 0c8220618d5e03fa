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
            accumulator.apply(TagSet(bitrate: 128_000 + second * 100))?.track
        }
        XCTAssertTrue(events.isEmpty)
        XCTAssertEqual(accumulator.current.bitrate, 128_000 + 59 * 100)
    }

    func testBitrateOnlyAfterATitleProducesNoEvents() {
        var accumulator = makeAccumulator()
        XCTAssertNotNil(accumulator.apply(TagSet(title: "A - B"))?.track)
        for second in 0..<60 {
            XCTAssertNil(accumulator.apply(TagSet(bitrate: 96_000 + second, nominalBitrate: 128_000))?.track)
        }
    }

    func testTitleChangeProducesExactlyOneEvent() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(title: "Daft Punk - One More Time"))?.track
        XCTAssertEqual(
            event,
            TrackInfo(
                title: "One More Time", artist: "Daft Punk", rawTitle: "Daft Punk - One More Time",
                streamURL: streamURL, titleSource: .stream))
        let next = accumulator.apply(TagSet(title: "Air - Sexy Boy"))?.track
        XCTAssertEqual(next?.title, "Sexy Boy")
        XCTAssertEqual(next?.artist, "Air")
    }

    func testSameTitleAgainProducesNoEvent() {
        var accumulator = makeAccumulator()
        XCTAssertNotNil(accumulator.apply(TagSet(title: "A - B"))?.track)
        XCTAssertNil(accumulator.apply(TagSet(title: "A - B"))?.track)
        XCTAssertNil(accumulator.apply(TagSet(title: "  A  -  B\n"))?.track)
    }

    func testCodecAndBitrateAreCarriedIntoTheNextEvent() {
        var accumulator = makeAccumulator()
        XCTAssertNotNil(accumulator.apply(TagSet(title: "A - B"))?.track)
        XCTAssertNil(accumulator.apply(TagSet(bitrate: 192_000))?.track)
        XCTAssertEqual(accumulator.apply(TagSet(bitrate: 192_000, codec: "MPEG-1 Layer 3 (MP3)"))?.track.codec, "MPEG-1 Layer 3 (MP3)")
        let event = accumulator.apply(TagSet(title: "C - D"))?.track
        XCTAssertEqual(event?.codec, "MPEG-1 Layer 3 (MP3)")
        XCTAssertEqual(event?.bitrate, 192_000)
    }

    /// A titleless station (an Ogg stream whose comments name nothing) sends its station name
    /// first and its codec after: the codec alone is reported, once, so status and casting know it.
    func testACodecLearnedAfterTheLastReportIsReportedOnceWithTheSameSequence() {
        var accumulator = makeAccumulator()
        let first = accumulator.apply(TagSet(station: "Quiet FM"))
        XCTAssertNil(first?.track.codec)
        let learned = accumulator.apply(TagSet(codec: "Vorbis"))
        XCTAssertEqual(learned?.track.codec, "Vorbis")
        XCTAssertEqual(learned?.track.station, "Quiet FM")
        XCTAssertEqual(learned?.sequence, first?.sequence, "the same heard track")
        XCTAssertNil(accumulator.apply(TagSet(bitrate: 96_000, codec: "Vorbis")), "the same codec again is no event")
        accumulator.reset(keepStation: true)
        XCTAssertNil(accumulator.apply(TagSet(codec: "Vorbis")), "nor after a reconnect to the same stream")
        XCTAssertEqual(accumulator.apply(TagSet(codec: "Opus"))?.track.codec, "Opus", "a chained stream's new codec is")
    }

    func testNominalBitrateWinsOverMeasured() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(nominalBitrate: 128_000))?.track
        _ = accumulator.apply(TagSet(bitrate: 131_072))?.track
        XCTAssertEqual(accumulator.current.bitrate, 128_000)
    }

    func testNonPositiveBitrateIsIgnored() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(bitrate: 64_000))?.track
        _ = accumulator.apply(TagSet(bitrate: 0))?.track
        _ = accumulator.apply(TagSet(bitrate: -1))?.track
        XCTAssertEqual(accumulator.current.bitrate, 64_000)
    }

    func testStationIsStickyAcrossLaterTagSets() {
        var accumulator = makeAccumulator()
        XCTAssertEqual(accumulator.apply(TagSet(station: "Radio Paradise", genre: "Eclectic"))?.track.station, "Radio Paradise")
        let event = accumulator.apply(TagSet(title: "A - B"))?.track
        XCTAssertEqual(event?.station, "Radio Paradise")
        XCTAssertEqual(event?.genre, "Eclectic")
    }

    func testStationChangeEmits() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(station: "One"))?.track
        XCTAssertEqual(accumulator.apply(TagSet(station: "Two"))?.track.station, "Two")
        XCTAssertNil(accumulator.apply(TagSet(station: "Two"))?.track)
    }

    func testEmptyStationDoesNotClearIt() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(station: "One"))?.track
        XCTAssertNil(accumulator.apply(TagSet(station: "  "))?.track)
        XCTAssertEqual(accumulator.current.station, "One")
    }

    func testGenreAloneDoesNotEmit() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))?.track
        XCTAssertNil(accumulator.apply(TagSet(genre: "Jazz"))?.track)
        XCTAssertEqual(accumulator.current.genre, "Jazz")
    }

    func testResetWithoutKeepingStationForgetsEverything() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B", station: "One", bitrate: 1))?.track
        accumulator.reset(keepStation: false)
        XCTAssertEqual(accumulator.current, TrackInfo(streamURL: streamURL))
        XCTAssertEqual(accumulator.apply(TagSet(title: "A - B"))?.track.title, "B", "same song on a new station is reported")
    }

    func testResetKeepingStationKeepsItAndDoesNotRepeatTheSameSong() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B", station: "One"))?.track
        accumulator.reset(keepStation: true)
        XCTAssertEqual(accumulator.current.station, "One")
        XCTAssertNil(accumulator.current.title)
        XCTAssertNil(accumulator.apply(TagSet(bitrate: 128_000))?.track)
        XCTAssertNil(accumulator.apply(TagSet(title: "A - B"))?.track)
        XCTAssertEqual(accumulator.apply(TagSet(title: "C - D"))?.track.station, "One")
    }

    func testTitleFromStatusAPIWhenStreamHasNone() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(station: "Station"))?.track
        let status = StationStatus(title: "Artist - Song", artworkURL: artwork)
        let event = accumulator.apply(TagSet(status: status))?.track
        XCTAssertEqual(event?.title, "Song")
        XCTAssertEqual(event?.artist, "Artist")
        XCTAssertEqual(event?.artworkURL, artwork)
        XCTAssertEqual(event?.station, "Station")
    }

    func testStreamTitleWinsOverStatusTitle() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "Stream - Song"))?.track
        let event = accumulator.apply(TagSet(status: StationStatus(title: "Status - Song", artworkURL: artwork)))?.track
        XCTAssertEqual(event?.artist, "Stream", "artwork changed, title stays the stream's")
        XCTAssertEqual(event?.artworkURL, artwork)
    }

    func testClearedStreamTitleIsABreakNotTheStatusTitle() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(status: StationStatus(title: "Status - Song")))
        _ = accumulator.apply(TagSet(title: "Stream - Song"))
        let report = accumulator.apply(TagSet(title: " - "))
        XCTAssertEqual(report?.track.isBreak, true, "the stream said nothing plays: the status API does not fill that in")
        XCTAssertNil(report?.track.artist)
    }

    func testEmptyStreamTitleBeforeAnyTrackFallsBackToStatusTitle() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: ""))
        let report = accumulator.apply(TagSet(status: StationStatus(title: "Status - Song")))
        XCTAssertEqual(report?.track.artist, "Status", "a stream without titles is no break")
        XCTAssertEqual(report?.track.isBreak, false)
    }

    func testArtworkChangeAloneEmits() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))?.track
        XCTAssertEqual(accumulator.apply(TagSet(artworkURL: artwork))?.track.artworkURL, artwork)
    }

    func testStatusSnapshotReplacesArtworkEvenWithNil() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(status: StationStatus(title: "A - B", artworkURL: artwork)))?.track
        let event = accumulator.apply(TagSet(status: StationStatus(title: "C - D")))?.track
        XCTAssertNil(event?.artworkURL)
    }

    func testStatusLogoIsTheStationsNotTheTracksArtwork() {
        let logo = URL(string: "https://img.example.com/logo.png")!
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))?.track
        let event = accumulator.apply(TagSet(status: StationStatus(title: "A - B", logoURL: logo)))?.track
        XCTAssertNil(event?.artworkURL)
        XCTAssertEqual(event?.stationLogoURL, logo)
    }

    func testNewStreamTitleDropsThePreviousTracksStatusArtwork() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))?.track
        XCTAssertEqual(accumulator.apply(TagSet(status: StationStatus(title: "A - B", artworkURL: artwork)))?.track.artworkURL, artwork)
        let next = accumulator.apply(TagSet(title: "C - D"))?.track
        XCTAssertEqual(next?.title, "D")
        XCTAssertNil(next?.artworkURL, "the cover was A - B's")
    }

    func testUnchangedStatusSnapshotDoesNotEmit() {
        var accumulator = makeAccumulator()
        let status = StationStatus(title: "A - B", artworkURL: artwork, stationName: "S")
        XCTAssertNotNil(accumulator.apply(TagSet(status: status))?.track)
        XCTAssertNil(accumulator.apply(TagSet(status: status))?.track)
    }

    func testExplicitArtistTagWinsOverSplitting() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(title: "Intro - Live", artist: "Band"))?.track
        XCTAssertEqual(event?.artist, "Band")
        XCTAssertEqual(event?.title, "Intro - Live")
    }

    func testArtistOnlyTagSetUpdatesCurrentTrack() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "Song"))?.track
        let event = accumulator.apply(TagSet(artist: "Band"))?.track
        XCTAssertEqual(event?.title, "Song")
        XCTAssertEqual(event?.artist, "Band")
    }

    func testNewTitleWithoutArtistDropsPreviousExplicitArtist() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "Song", artist: "Band"))?.track
        let event = accumulator.apply(TagSet(title: "Other - Tune"))?.track
        XCTAssertEqual(event?.artist, "Other")
        XCTAssertEqual(event?.title, "Tune")
    }

    func testEmptyTitleAfterATrackIsABreak() {
        var accumulator = makeAccumulator()
        _ = accumulator.apply(TagSet(title: "A - B"))
        let event = accumulator.apply(TagSet(title: "-"))?.track
        XCTAssertEqual(event?.isBreak, true)
        XCTAssertNil(event?.title)
        XCTAssertNil(event?.artist)
        XCTAssertNil(event?.rawTitle)
        XCTAssertEqual(BusEvent.track(event!, sequence: 2).fields.first { $0.key == "break" }?.value, "1")
    }

    func testStationAndGenreAreCleaned() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(station: " My\u{0}Radio\n ", genre: "\tRock  Pop "))?.track
        XCTAssertEqual(event?.station, "MyRadio")
        XCTAssertEqual(event?.genre, "Rock Pop")
    }

    func testHostileTitleIsCapped() {
        var accumulator = makeAccumulator()
        let event = accumulator.apply(TagSet(title: String(repeating: "x", count: 100_000)))?.track
        XCTAssertEqual(event?.title?.count, 512)
    }

    /// Where the shown title came from travels with it: the stream's own, else the API set's source;
    /// none without a title. A provider's title never replaces a stream title that is present.
    func testTitleSourceSaysWhoseTitleIsShown() {
        var accumulator = makeAccumulator()
        let provider = accumulator.apply(TagSet(status: StationStatus(title: "P - Q"), source: .provider("icecast")))?.track
        XCTAssertEqual(provider?.titleSource, .provider("icecast"))
        XCTAssertEqual(BusEvent.Payload.track(provider!, sequence: 1).fields.first { $0.key == "title_source" }?.value, "provider:icecast")
        let stream = accumulator.apply(TagSet(title: "A - B"))?.track
        XCTAssertEqual(stream?.titleSource, .stream)
        XCTAssertNil(accumulator.apply(TagSet(status: StationStatus(title: "X - Y"), source: .recognised))?.track, "the stream's title stays")
        XCTAssertEqual(accumulator.current.title, "B")
        XCTAssertEqual(accumulator.current.titleSource, .stream)
        XCTAssertNil(TrackInfo(station: "S").titleSource)
        XCTAssertEqual(TitleSource(wireName: "provider:zeno"), .provider("zeno"))
        XCTAssertNil(TitleSource(wireName: "provider:"))
        XCTAssertNil(TitleSource(wireName: "the station"))
        for source in [TitleSource.stream, .stationAPI, .provider("r"), .recognised] {
            XCTAssertEqual(TitleSource(wireName: source.wireName), source)
        }
    }
}
