import ArtworkLogic
import Foundation
import XCTest

final class ArtworkLogicTests: XCTestCase {
    func testRadioCoStatusPrefersTheLargeArtworkAndIgnoresNonWebURLs() throws {
        let status = try StationStatus.parse(Data(#"""
        {"current_track":{"title":"A - B","artwork_url":"https://i/s.jpg","artwork_url_large":"https://i/l.jpg"},"logo_url":"https://i/station_logos/x.png"}
        """#.utf8))
        XCTAssertEqual(status, StationStatus(title: "A - B", artworkURL: "https://i/l.jpg", logoURL: "https://i/station_logos/x.png"))
        let hostile = try StationStatus.parse(Data(#"{"current_track":{"title":"","artwork_url":"file:///etc/passwd"}}"#.utf8))
        XCTAssertEqual(hostile, StationStatus())
        XCTAssertThrowsError(try StationStatus.parse(Data("<html>".utf8)))
        XCTAssertEqual(StationStatus.cacheBusted("http://h/s", now: 5), "http://h/s?_=5")
        XCTAssertEqual(StationStatus.cacheBusted("http://h/s?a=1", now: 5), "http://h/s?a=1&_=5")
    }

    func testTitleMatchingAndStationLogoDetection() {
        XCTAssertTrue(TrackMatcher.matches(statusTitle: "Artist A - Song One", title: "Song One", artist: "Artist A", rawTitle: nil))
        XCTAssertTrue(TrackMatcher.matches(statusTitle: "artist a  -  song one", title: nil, artist: nil, rawTitle: "Artist A - Song One"))
        XCTAssertTrue(TrackMatcher.matches(statusTitle: "Someone feat. X - Song One", title: "Song One", artist: "Someone", rawTitle: nil))
        XCTAssertFalse(TrackMatcher.matches(statusTitle: "Artist A - Old Song", title: "Song One", artist: "Artist A", rawTitle: nil))
        XCTAssertFalse(TrackMatcher.matches(statusTitle: "", title: "", artist: nil, rawTitle: nil))
        XCTAssertTrue(TrackMatcher.isStationLogo(url: "https://images.radio.co/station_logos/s1.png", statusTitle: nil, station: nil, logoURL: nil))
        XCTAssertTrue(TrackMatcher.isStationLogo(url: "https://i/c.png", statusTitle: "Oton FM", station: "oton fm", logoURL: nil))
        XCTAssertTrue(TrackMatcher.isStationLogo(url: "https://i/logo.png", statusTitle: nil, station: nil, logoURL: "https://i/logo.png"))
        XCTAssertFalse(TrackMatcher.isStationLogo(url: "https://images.radio.co/covers/l.jpg", statusTitle: "A - B", station: "Oton FM", logoURL: nil))
    }

    func testRetryScheduleIsTwoFourSixSeconds() {
        let schedule = RetrySchedule()
        XCTAssertEqual((0 ... 4).map { schedule.delay(before: $0) }, [0, 2, 4, 6, nil])
    }

    func testAverageColourWeighsByAlphaAndHonoursTheRowStride() {
        // 2×1 RGBA with 4 bytes of row padding: opaque red, transparent green.
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 0, 9, 9, 9, 9]
        let color = pixels.withUnsafeBytes { AverageColor.of(pixels: $0, width: 2, height: 1, rowStride: 12, channels: 4) }
        XCTAssertEqual(color, "#FF0000")
        let rgb: [UInt8] = [0, 0, 0, 255, 255, 255]
        XCTAssertEqual(rgb.withUnsafeBytes { AverageColor.of(pixels: $0, width: 2, height: 1, rowStride: 6, channels: 3) }, "#808080")
        XCTAssertNil(rgb.withUnsafeBytes { AverageColor.of(pixels: $0, width: 3, height: 1, rowStride: 6, channels: 3) }, "short buffer")
    }

    func testEvictionRemovesTheLeastRecentlyUsedUntilTheTotalFits() {
        let files = [CacheEviction.File(name: "old", size: 40, lastUse: 1), .init(name: "new", size: 40, lastUse: 3),
                     .init(name: "mid", size: 40, lastUse: 2)]
        XCTAssertEqual(CacheEviction.victims(files, limit: 100), ["old"])
        XCTAssertEqual(CacheEviction.victims(files, limit: 40), ["old", "mid"])
        XCTAssertEqual(CacheEviction.victims(files, limit: 120), [])
    }

    func testTruncatedJPEGAndPNGAreRecognised() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        XCTAssertTrue(ImageCompleteness.isComplete(png, format: "png"))
        XCTAssertFalse(ImageCompleteness.isComplete(Array(png.dropLast(3)), format: "png"))
        XCTAssertTrue(ImageCompleteness.isComplete([0xFF, 0xD8, 1, 2, 0xFF, 0xD9, 0], format: "jpeg"))
        XCTAssertFalse(ImageCompleteness.isComplete([0xFF, 0xD8, 1, 2, 3], format: "jpeg"))
    }
}
