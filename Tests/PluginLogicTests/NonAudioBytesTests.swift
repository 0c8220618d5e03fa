import FileSinkLogic
import XCTest

/// Issue 39 N7: bytes whose type is not audio are never units of a recording, whatever names the
/// source (a local secret named by a list, a web page, a typefinder that never decided).
final class NonAudioBytesTests: XCTestCase {
    private func read(_ caps: [String], bytes: [UInt8] = Array("SECRET=hunter2\n".utf8)) -> (units: Int, reader: StreamUnitReader) {
        var reader = StreamUnitReader()
        var offset: UInt64 = 0
        var units = 0
        for (index, value) in caps.enumerated() {
            let reading = reader.read(TrackSplitter.Buffer(bytes: bytes, caps: value, newConnection: index == 0, offset: offset))
            offset += UInt64(bytes.count)
            units += reading.units.count
        }
        return (units, reader)
    }

    func testTextImagesAndUntypedBytesGiveNoUnits() {
        for caps in ["text/plain", "text/html", "image/png", "application/xml", "video/x-matroska"] {
            let (units, reader) = read([caps, caps])
            XCTAssertEqual(units, 0, caps)
            XCTAssertFalse(reader.carriesAudio, caps)
            XCTAssertEqual(reader.nonAudioBytes, 30, caps)
        }
        // Never typed: held up to the bound, then dropped rather than written raw.
        let untyped = [UInt8](repeating: 0x41, count: 300_000)
        let (units, reader) = read(Array(repeating: StreamUnitReader.unknownCaps, count: 5), bytes: untyped)
        XCTAssertEqual(units, 0)
        XCTAssertGreaterThan(reader.nonAudioBytes, 0)
        // Typed as text after the first bytes: those are dropped too.
        let (later, _) = read([StreamUnitReader.unknownCaps, "text/plain"])
        XCTAssertEqual(later, 0)
    }

    func testAudioOfAContainerOtonDoesNotFrameIsStillWrittenRaw() {
        let (units, reader) = read(["audio/x-wavpack", "audio/x-wavpack"])  // (native FLAC is framed now)
        XCTAssertGreaterThan(units, 0, "an audio type oton does not cut is kept whole")
        XCTAssertTrue(reader.carriesAudio)
        XCTAssertEqual(reader.nonAudioBytes, 0)
    }
}
