import NowPlayingLogic
import OtonPluginKit
import XCTest

final class NowPlayingLogicTests: XCTestCase {
    private func track(_ sequence: UInt64, _ title: String?, artist: String? = "Artist", station: String? = "Oton FM") -> TrackFields {
        TrackFields(sequence: sequence, title: title, artist: artist, station: station, streamURL: "http://127.0.0.1/live")
    }

    func testStatesMapToMprisPlaybackStatus() {
        XCTAssertEqual(PlaybackStatus(state: "playing", retryAttempt: 0), .playing)
        XCTAssertEqual(PlaybackStatus(state: "buffering", retryAttempt: 0), .playing)
        XCTAssertEqual(PlaybackStatus(state: "connecting", retryAttempt: 0), .playing)
        XCTAssertEqual(PlaybackStatus(state: "paused", retryAttempt: 0), .paused)
        XCTAssertEqual(PlaybackStatus(state: "error", retryAttempt: 2), .playing, "reconnecting")
        XCTAssertEqual(PlaybackStatus(state: "error", retryAttempt: 0), .stopped, "gave up")
        XCTAssertEqual(PlaybackStatus(state: "idle", retryAttempt: 0), .stopped)
        XCTAssertEqual(PlaybackStatus(state: "something-new", retryAttempt: 0), .stopped)
    }

    /// Sleep is held off while the listener wants sound (reconnecting too), not when paused or stopped.
    func testOnlyPlayingKeepsTheComputerAwake() {
        XCTAssertTrue(PlaybackStatus(state: "playing", retryAttempt: 0).keepsComputerAwake)
        XCTAssertTrue(PlaybackStatus(state: "error", retryAttempt: 1).keepsComputerAwake, "reconnecting")
        XCTAssertFalse(PlaybackStatus(state: "paused", retryAttempt: 0).keepsComputerAwake)
        XCTAssertFalse(PlaybackStatus(state: "idle", retryAttempt: 0).keepsComputerAwake)
    }

    /// Casting (the UPnP plugin's org.oton.cast.state) shows as the track's xesam:comment, and goes with it.
    func testCastingShowsAsTheCommentUntilItStops() {
        var model = NowPlayingModel()
        _ = model.applyTrack(track(1, "One"))
        XCTAssertEqual(model.applyCast(renderer: "Living Room", comment: "Casting to Living Room").properties, ["Metadata"])
        var metadata = Dictionary(uniqueKeysWithValues: model.metadata.map { ($0.key, $0.value) })
        XCTAssertEqual(metadata["xesam:comment"], .strings(["Casting to Living Room"]))
        XCTAssertEqual(model.castRenderer, "Living Room")
        XCTAssertEqual(model.applyCast(renderer: "Living Room", comment: "Casting to Living Room").properties, [], "no change")
        XCTAssertEqual(model.applyCast(renderer: nil, comment: nil).properties, ["Metadata"])
        metadata = Dictionary(uniqueKeysWithValues: model.metadata.map { ($0.key, $0.value) })
        XCTAssertNil(metadata["xesam:comment"])
    }

    func testMetadataHasANewTrackIDPerTrackAndTheArtworkOnlyForItsTrack() {
        var model = NowPlayingModel()
        XCTAssertEqual(model.metadata.first?.value, .objectPath(NowPlayingModel.noTrack))
        XCTAssertEqual(model.applyTrack(track(1, "One")).properties, ["Metadata"])
        XCTAssertEqual(model.trackID, "/org/oton/track/1")
        XCTAssertEqual(model.applyTrack(track(1, "One")).properties, [], "an identical event changes nothing")
        XCTAssertEqual(model.applyArtwork(fields: ["path": "/c/a.jpg", "sequence": "2"]).properties, [], "for another track")
        XCTAssertEqual(model.applyArtwork(fields: ["path": "/c/a b.jpg", "sequence": "1"]).properties, ["Metadata"])
        let metadata = Dictionary(uniqueKeysWithValues: model.metadata.map { ($0.key, $0.value) })
        XCTAssertEqual(metadata["mpris:artUrl"], .string("file:///c/a%20b.jpg"))
        XCTAssertEqual(metadata["xesam:artist"], .strings(["Artist"]))
        XCTAssertEqual(metadata["xesam:album"], .string("Oton FM"))
        XCTAssertEqual(metadata["xesam:url"], .string("http://127.0.0.1/live"))
        _ = model.applyTrack(track(2, "Two"))
        XCTAssertEqual(model.trackID, "/org/oton/track/2")
        XCTAssertNil(model.artworkPath, "the previous cover is not shown for the next track")
    }

    func testOneNotificationPerTrackThenOneWithTheCover() {
        var model = NowPlayingModel()
        let first = model.applyTrack(track(1, "One"))
        XCTAssertEqual(first.notification, .init(summary: "One", body: "Artist — Oton FM", imagePath: nil))
        XCTAssertNil(model.applyTrack(track(1, "One", station: "Renamed FM")).notification, "same track, no second notification")
        XCTAssertEqual(model.applyArtwork(fields: ["path": "/c/1.png", "title": "One"]).notification?.imagePath, "/c/1.png")
        XCTAssertNil(model.applyArtwork(fields: ["path": "/c/1.png", "title": "One"]).notification)
    }

    func testJinglesBreaksAndDisabledNotificationsAreNotAnnounced() {
        let announcer = TrackAnnouncer(skipPatterns: ["Jingle", "advert"])
        XCTAssertFalse(announcer.shouldAnnounce(track(1, "Station JINGLE")))
        XCTAssertFalse(announcer.shouldAnnounce(track(1, "Break", artist: "Advert")))
        // Station idents and placeholders are the host's to judge: they arrive as breaks, without a title.
        var ident = track(1, nil, artist: nil)
        ident.isBreak = true
        XCTAssertFalse(announcer.shouldAnnounce(ident))
        XCTAssertFalse(announcer.shouldAnnounce(track(1, nil)))
        XCTAssertFalse(announcer.shouldAnnounce(track(1, "")))
        XCTAssertTrue(announcer.shouldAnnounce(track(1, "Song")))
        var quiet = NowPlayingModel(notifications: false)
        XCTAssertNil(quiet.applyTrack(track(1, "Song")).notification)
    }

    func testVolumeAndStateChangesAreReportedOnce() {
        var model = NowPlayingModel()
        XCTAssertEqual(model.applyVolume(0.3).properties, ["Volume"])
        XCTAssertEqual(model.applyVolume(0.3).properties, [])
        XCTAssertEqual(model.applyVolume(.nan).properties, [])
        XCTAssertEqual(model.applyState(.playing).properties, ["PlaybackStatus"])
        XCTAssertEqual(model.applyState(.playing).properties, [])
    }

    /// Next/Previous switch stations (issue 14.1): CanGoNext/CanGoPrevious follow the track event's station_count.
    func testCanGoNextFollowsTheStationCount() {
        var model = NowPlayingModel()
        XCTAssertFalse(model.canSwitchStations)
        var one = TrackFields(fields: ["sequence": "1", "title": "A", "station_count": "1"])!
        XCTAssertEqual(model.applyTrack(one).properties, ["Metadata"])
        let two = TrackFields(fields: ["sequence": "2", "title": "B", "station_count": "3"])!
        XCTAssertEqual(model.applyTrack(two).properties, ["Metadata", "CanGoNext", "CanGoPrevious"])
        XCTAssertTrue(model.canSwitchStations)
        one.sequence = 3
        XCTAssertEqual(model.applyTrack(one).properties, ["Metadata", "CanGoNext", "CanGoPrevious"])
        XCTAssertFalse(model.canSwitchStations)
    }
}
