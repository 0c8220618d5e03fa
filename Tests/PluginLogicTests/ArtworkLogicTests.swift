import ArtworkLogic
import Foundation
import XCTest

final class ArtworkLogicTests: XCTestCase {
    func testStationLogoDetection() {
        XCTAssertTrue(TrackMatcher.isStationLogo(url: "https://images.radio.co/station_logos/s1.png", statusTitle: nil, station: nil, logoURL: nil))
        XCTAssertTrue(TrackMatcher.isStationLogo(url: "https://i/c.png", statusTitle: "Oton FM", station: "oton fm", logoURL: nil))
        XCTAssertTrue(TrackMatcher.isStationLogo(url: "https://i/logo.png", statusTitle: nil, station: nil, logoURL: "https://i/logo.png"))
        XCTAssertFalse(TrackMatcher.isStationLogo(url: "https://images.radio.co/covers/l.jpg", statusTitle: "A - B", station: "Oton FM", logoURL: nil))
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
        let files = [
            CacheEviction.File(name: "old", size: 40, lastUse: 1), .init(name: "new", size: 40, lastUse: 3),
            .init(name: "mid", size: 40, lastUse: 2),
        ]
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

    /// The built-in artwork is a picture (♫ on a gradient), not a flat square: an artwork area
    /// showing it is never an empty grey box. Its average colour is what the plugin publishes.
    func testTheDefaultPictureIsNotAFlatSquare() {
        let size = DefaultArtworkPicture.size
        let pixels = DefaultArtworkPicture.rgb()
        XCTAssertEqual(pixels.count, size * size * 3)
        var bright = 0
        var colours = Set<Int>()
        for offset in stride(from: 0, to: pixels.count, by: 3) {
            let (red, green, blue) = (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
            if red > 200, green > 200, blue > 200 { bright += 1 }
            colours.insert(red << 16 | green << 8 | blue)
        }
        let share = Double(bright) / Double(size * size)
        XCTAssertTrue((0.04...0.3).contains(share), "the notes cover part of the picture: \(share)")
        XCTAssertGreaterThan(colours.count, 100, "a gradient and smooth edges, not one colour")
        XCTAssertEqual(pixels[0..<3].map { $0 }, [0x5E, 0x6E, 0xA0], "the top left is the gradient's start")
        let average = DefaultArtworkPicture.averageColor(of: pixels)
        XCTAssertNotNil(average.wholeMatch(of: #/#[0-9A-F]{6}/#), average)
        XCTAssertNotEqual(average, "#3A3F4B", "not the old flat slate")
    }
}
