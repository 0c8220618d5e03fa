import Foundation
import XCTest

@testable import OtonHost

/// The pure parts of issue 27's HLS/DASH fixes: the ID3 slimmer (27.4), the ADTS framing of raw
/// AAC (27.6) and the DASH manifest detector (27.9).
final class AdaptiveStreamLogicTests: XCTestCase {
    private func syncsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
    private func frame(_ id: String, _ payload: [UInt8]) -> [UInt8] { Array(id.utf8) + syncsafe(payload.count) + [0, 0] + payload }
    private func tag(_ frames: [UInt8], padding: Int = 0) -> [UInt8] {
        [0x49, 0x44, 0x33, 4, 0, 0] + syncsafe(frames.count + padding) + frames + [UInt8](repeating: 0, count: padding)
    }

    /// Feeds `bytes` in pieces of `piece` and returns what comes out.
    private func slim(_ bytes: [UInt8], piece: Int, slimmer: inout ID3TagSlimmer) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let end = min(index + piece, bytes.count)
            output += bytes[index..<end].withUnsafeBytes { slimmer.push($0) }
            index = end
        }
        return output
    }

    func testABigFrameIsCutAndTheSmallOnesKeptWhateverThePieces() {
        let title = frame("TIT2", [3] + Array("Song One".utf8) + [0])
        let stamp = frame("PRIV", Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 2])
        let big = frame("APIC", [UInt8](repeating: 0xAB, count: 2 * ID3TagSlimmer.maxFrameBytes))
        let audio: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x01, 0x1F, 0xFC]
        for piece in [1, 7, 4096, 10_000_000] {
            var slimmer = ID3TagSlimmer()
            let output = slim(tag(stamp + big + title, padding: 100) + audio, piece: piece, slimmer: &slimmer)
            XCTAssertEqual(output, tag(stamp + title) + audio, "pieces of \(piece)")
            XCTAssertEqual(slimmer.droppedFrames, 1)
        }
    }

    func testASegmentWithoutATagPassesUnchangedAndResetStartsAgain() {
        var slimmer = ID3TagSlimmer()
        let ts = [UInt8](repeating: 0x47, count: 376)
        XCTAssertEqual(slim(ts, piece: 5, slimmer: &slimmer), ts)
        XCTAssertTrue(slimmer.isPassingThrough)
        slimmer.reset()
        let small = tag(frame("TIT2", [3, 0x41, 0]))
        XCTAssertEqual(slim(small + ts, piece: 3, slimmer: &slimmer), small + ts)
    }

    func testHeldBytesStayBoundedWhenEveryFrameIsSmall() {
        // Thousands of frames just under the frame limit: the kept part stops at maxKeptBytes.
        let one = frame("PRIV", [UInt8](repeating: 1, count: ID3TagSlimmer.maxFrameBytes - 10))
        var frames: [UInt8] = []
        for _ in 0..<12 { frames += one }
        var slimmer = ID3TagSlimmer()
        let output = slim(tag(frames), piece: 65536, slimmer: &slimmer)
        XCTAssertLessThanOrEqual(output.count, ID3TagSlimmer.maxKeptBytes + 10)
        XCTAssertGreaterThan(slimmer.droppedFrames, 0)
    }

    func testAnUnwalkableHugeTagIsDroppedWhole() {
        var header: [UInt8] = [0x49, 0x44, 0x33, 4, 0, 0x80] + syncsafe(4 * ID3TagSlimmer.maxKeptBytes)  // unsynchronised
        header += [UInt8](repeating: 0x11, count: 4 * ID3TagSlimmer.maxKeptBytes)
        var slimmer = ID3TagSlimmer()
        XCTAssertEqual(slim(header + [0xFF, 0xF1], piece: 8192, slimmer: &slimmer), [0xFF, 0xF1])
    }

    func testRawAACFromFMP4GetsADTSHeaders() throws {
        // AAC LC, 44.1 kHz, stereo: AudioSpecificConfig 0x12 0x10.
        let framing = try XCTUnwrap(
            RawAACFraming(
                caps: "audio/mpeg, mpegversion=(int)4, framed=(boolean)true, stream-format=(string)raw, codec_data=(buffer)121056e500, rate=(int)44100"))
        XCTAssertEqual(framing.header(payloadBytes: 100), [0xFF, 0xF1, 0x50, 0x80, 0x0D, 0x7F, 0xFC])
        XCTAssertTrue(framing.caps.contains("stream-format=(string)adts"))
        XCTAssertNil(RawAACFraming(caps: "audio/mpeg, mpegversion=(int)4, stream-format=(string)adts"), "already ADTS")
        XCTAssertNil(RawAACFraming(caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3"))
    }

    func testDASHManifestsAreRecognised() {
        let mpd = Data("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"dynamic\">".utf8)
        XCTAssertTrue(DASHDetector.isDASH(mpd, contentType: "application/xml"))
        XCTAssertTrue(DASHDetector.isDASH(Data("junk".utf8), contentType: "application/dash+xml; charset=utf-8"))
        XCTAssertFalse(DASHDetector.isDASH(Data("<?xml version=\"1.0\"?><playlist version=\"1\"/>".utf8), contentType: "application/xspf+xml"))
        XCTAssertFalse(DASHDetector.isDASH(Data("#EXTM3U\n".utf8), contentType: nil))
    }
}
