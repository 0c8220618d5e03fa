import OtonHost
import XCTest

/// The light engine's first look at a stream: leading ID3 tags are passed over, but not without end.
final class StreamSnifferTests: XCTestCase {
    /// An ID3v2.4 tag of `body` bytes (syncsafe size).
    private func id3(_ body: Int) -> [UInt8] {
        let size = [UInt8((body >> 21) & 0x7F), UInt8((body >> 14) & 0x7F), UInt8((body >> 7) & 0x7F), UInt8(body & 0x7F)]
        return Array("ID3".utf8) + [4, 0, 0] + size + [UInt8](repeating: 0x20, count: body)
    }

    private let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)  // MPEG-1 Layer III, 128 kbit/s

    func testALeadingTagIsSkippedAndTheAudioBehindItFound() {
        var sniffer = StreamSniffer(contentType: "audio/mpeg")
        let verdict = (id3(20_000) + frame + frame).withUnsafeBytes { sniffer.push($0) }
        guard case let .audio(kind, skip) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertEqual(kind.codec, "MPEG-1 Layer 3 (MP3)")
        XCTAssertEqual(skip, 20_010)
    }

    /// Issue 39, N13: a chain of ID3 tags kept a station "connecting" forever with no error.
    func testAnEndlessChainOfTagsIsRefusedWithinItsBound() {
        var sniffer = StreamSniffer(contentType: "audio/mpeg")
        let tag = id3(64 * 1024)
        var pushed = 0
        while pushed <= StreamSniffer.maximumSkippedBytes + tag.count {
            let verdict = tag.withUnsafeBytes { sniffer.push($0) }
            pushed += tag.count
            switch verdict {
            case .undecided: continue
            case let .notAudio(what):
                XCTAssertTrue(what.contains("ID3 tags and no audio"), what)
                XCTAssertLessThanOrEqual(pushed, StreamSniffer.maximumSkippedBytes + tag.count)
                return
            default:
                return XCTFail("\(verdict)")
            }
        }
        XCTFail("still undecided after \(pushed) bytes of tags")
    }
}
