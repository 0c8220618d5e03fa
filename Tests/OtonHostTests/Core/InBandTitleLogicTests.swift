import CGStreamer
import Foundation
import OtonMedia
import XCTest

/// Issue 52's pure parts: the `emsg` box (ISO/IEC 23009-1 §5.10.3.3, versions 0 and 1), the scanner that
/// finds such boxes in an fMP4 segment as its bytes arrive, the ID3 titles libgsttag reads from them, and
/// a DASH manifest's EventStream. InBandTitleTests shows the whole way on a real pipeline.
final class InBandTitleLogicTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        gst_init(nil, nil)  // libgsttag's ID3 reader registers its tags with GStreamer
    }

    private static let aom = "https://aomedia.org/emsg/ID3"
    private static let apple = "https://developer.apple.com/streaming/emsg-id3"

    private func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) } }
    private func syncsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
    private func frame(_ id: String, _ text: String) -> [UInt8] {
        let payload = [3] + Array(text.utf8) + [0]
        return Array(id.utf8) + syncsafe(payload.count) + [0, 0] + payload
    }
    private func id3(artist: String, title: String) -> [UInt8] {
        let frames = frame("TIT2", title) + frame("TPE1", artist)
        return [0x49, 0x44, 0x33, 4, 0, 0] + syncsafe(frames.count) + frames
    }
    private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
    private func emsgPayload(version: UInt8, scheme: String, id: UInt32, time: UInt64 = 0, data: [UInt8]) -> [UInt8] {
        let strings = Array(scheme.utf8) + [0] + [0]  // the scheme, then an empty value
        if version == 0 {
            return [0, 0, 0, 0] + strings + be32(1000) + be32(UInt32(time)) + be32(0xFFFF_FFFF) + be32(id) + data
        }
        return [1, 0, 0, 0] + be32(1000) + be32(UInt32(time >> 32)) + be32(UInt32(time & 0xFFFF_FFFF)) + be32(0xFFFF_FFFF) + be32(id) + strings + data
    }

    private func scan(_ bytes: [UInt8], piece: Int, scanner: inout FragmentBoxScanner) -> [FragmentBoxScanner.Found] {
        var found: [FragmentBoxScanner.Found] = []
        var index = 0
        while index < bytes.count {
            let end = min(index + piece, bytes.count)
            found += bytes[index..<end].withUnsafeBytes { scanner.push($0) }
            index = end
        }
        return found
    }

    func testBothVersionsParseTheirFieldsInTheirOrder() throws {
        let tag = id3(artist: "A", title: "T")
        let zero = try XCTUnwrap(EventMessage.parse(emsgPayload(version: 0, scheme: Self.apple, id: 7, time: 1500, data: tag)))
        XCTAssertEqual(zero.scheme, Self.apple)
        XCTAssertEqual(zero.value, "")
        XCTAssertEqual(zero.timescale, 1000)
        XCTAssertEqual(zero.presentationTime, .delta(1500))
        XCTAssertEqual(zero.id, 7)
        XCTAssertEqual(zero.data, tag)
        XCTAssertTrue(zero.carriesID3)
        let one = try XCTUnwrap(EventMessage.parse(emsgPayload(version: 1, scheme: Self.aom, id: 9, time: 0x1_0000_0002, data: tag)))
        XCTAssertEqual(one.presentationTime, .absolute(0x1_0000_0002))
        XCTAssertEqual(one.id, 9)
        XCTAssertEqual(one.data, tag)
        XCTAssertTrue(one.carriesID3)
        XCTAssertFalse(try XCTUnwrap(EventMessage.parse(emsgPayload(version: 1, scheme: "urn:scte:scte35:2013:bin", id: 1, data: []))).carriesID3)
    }

    func testTruncatedOrUnknownBoxesAreRefusedNotReadPastTheirEnd() {
        let whole = emsgPayload(version: 1, scheme: Self.aom, id: 1, data: [1, 2, 3])
        for cut in [0, 3, 4, 10, 23, 24 + 5] { XCTAssertNil(EventMessage.parse(whole.prefix(cut)), "cut at \(cut)") }
        let zero = emsgPayload(version: 0, scheme: Self.apple, id: 1, data: [])
        XCTAssertNil(EventMessage.parse(zero.prefix(4 + 10)), "a scheme without its NUL")
        XCTAssertNil(EventMessage.parse(zero.dropLast(2)), "the id cut short")
        XCTAssertNil(EventMessage.parse([2, 0, 0, 0] + whole.dropFirst(4)), "version 2 does not exist")
    }

    func testTheScannerFindsEmsgBoxesBetweenOtherBoxesWhateverThePieces() {
        let message = emsgPayload(version: 1, scheme: Self.aom, id: 3, data: id3(artist: "A", title: "T"))
        let segment =
            box("styp", Array("msdh".utf8) + be32(0)) + box("emsg", message) + box("sidx", [UInt8](repeating: 0, count: 40))
            + box("moof", [UInt8](repeating: 0, count: 200)) + box("mdat", [UInt8](repeating: 0xFF, count: 5000))
            + box("emsg", message)
        for piece in [1, 3, 7, 64, 100_000] {
            var scanner = FragmentBoxScanner()
            let found = scan(segment, piece: piece, scanner: &scanner)
            XCTAssertEqual(found, [.message(EventMessage.parse(message)!), .message(EventMessage.parse(message)!)], "pieces of \(piece)")
        }
    }

    func testAHugeEmsgIsSkippedUnheldAndAMalformedOneReported() {
        var scanner = FragmentBoxScanner()
        let huge = box("emsg", [UInt8](repeating: 1, count: FragmentBoxScanner.maxMessageBytes + 1))
        let cut = box("emsg", emsgPayload(version: 1, scheme: Self.aom, id: 1, data: []).prefix(12).map { $0 })
        let good = emsgPayload(version: 0, scheme: Self.apple, id: 2, data: [])
        let found = scan(box("styp", []) + huge + cut + box("emsg", good), piece: 4096, scanner: &scanner)
        XCTAssertEqual(found, [.oversized(bytes: huge.count), .malformed, .message(EventMessage.parse(good)!)])
    }

    func testADownloadThatIsNotFMP4IsLetGoAtOnce() {
        for start: [UInt8] in [
            [0x47, 0x40, 0x00, 0x10, 0, 0, 0, 0], [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC, 0], Array("ID3".utf8) + [4, 0, 0, 0, 0, 1, 0],
        ] {
            var scanner = FragmentBoxScanner()
            let found = scan(start + box("emsg", emsgPayload(version: 1, scheme: Self.aom, id: 1, data: [])), piece: 5, scanner: &scanner)
            XCTAssertEqual(found, [], "\(start)")
            XCTAssertTrue(scanner.isDone)
            scanner.reset()
            XCTAssertFalse(scanner.isDone, "a new download is looked at again")
        }
    }

    func testID3TitlesAreReadAndGarbageIsNot() {
        let tags = SegmentEventTitles.tags(ofID3: id3(artist: "Artist A", title: "Song One"))
        XCTAssertEqual(tags?.title, "Song One")
        XCTAssertEqual(tags?.artist, "Artist A")
        XCTAssertNil(SegmentEventTitles.tags(ofID3: Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F] + [UInt8](repeating: 0x5A, count: 64)))
        XCTAssertNil(SegmentEventTitles.tags(ofID3: [UInt8](repeating: 0xAB, count: 100)))
        XCTAssertNil(SegmentEventTitles.tags(ofID3: []))
    }

    private func manifest(type: String, events: [(time: Int, artist: String, title: String)], scheme: String = aom) -> [UInt8] {
        let list = events.map {
            #"<Event presentationTime="\#($0.time)" id="1">\#(Data(id3(artist: $0.artist, title: $0.title)).base64EncodedString())</Event>"#
        }.joined()
        return Array(
            #"""
            <?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="\#(type)" availabilityStartTime="2026-01-01T00:00:00Z" suggestedPresentationDelay="PT2S">
            <Period id="0" start="PT10S"><EventStream schemeIdUri="\#(scheme)" timescale="1000">\#(list)</EventStream>
            <AdaptationSet contentType="audio"/></Period></MPD>
            """#.utf8)
    }

    func testEventStreamEventsBecomeCurrentAtTheirTime() throws {
        let start = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-01-01T00:00:00Z"))
        let live = try XCTUnwrap(DASHEventStreams.parse(manifest(type: "dynamic", events: [(5000, "B", "Two"), (0, "A", "One")])))
        XCTAssertEqual(live.events.map(\.tags.title), ["One", "Two"], "in time order")
        XCTAssertEqual(live.events.map(\.seconds), [10, 15], "the Period's start counts")
        // Dynamic: the wall clock, less the suggested presentation delay of 2 s.
        XCTAssertNil(DASHEventStreams.current(in: live, secondsPlayed: 0, now: start.addingTimeInterval(11)))
        XCTAssertEqual(DASHEventStreams.current(in: live, secondsPlayed: 0, now: start.addingTimeInterval(12.5))?.tags.title, "One")
        XCTAssertEqual(DASHEventStreams.current(in: live, secondsPlayed: 0, now: start.addingTimeInterval(16.9))?.tags.title, "One")
        XCTAssertEqual(DASHEventStreams.current(in: live, secondsPlayed: 0, now: start.addingTimeInterval(17.1))?.tags.title, "Two")
        // Static: how long the pipeline has played.
        let onDemand = try XCTUnwrap(DASHEventStreams.parse(manifest(type: "static", events: [(0, "A", "One"), (5000, "B", "Two")])))
        XCTAssertNil(DASHEventStreams.current(in: onDemand, secondsPlayed: 9, now: Date()))
        XCTAssertEqual(DASHEventStreams.current(in: onDemand, secondsPlayed: 16, now: Date())?.tags.artist, "B")
    }

    func testOtherSchemesAndGarbageEventsAreIgnoredAndTheTableForgets() throws {
        XCTAssertEqual(try XCTUnwrap(DASHEventStreams.parse(manifest(type: "static", events: [(0, "A", "One")], scheme: "urn:other"))).events, [])
        let garbage = Array(
            #"<MPD type="static"><Period><EventStream schemeIdUri="\#(Self.aom)"><Event>!!!not base64</Event><Event>QUJD</Event></EventStream></Period></MPD>"#
                .utf8)
        XCTAssertEqual(try XCTUnwrap(DASHEventStreams.parse(garbage)).events, [])
        XCTAssertNil(DASHEventStreams.parse(Array("<html><body>no</body></html>".utf8)))
        let url = "http://127.0.0.1:1/in-band-title-test.mpd"
        DASHEventStreams.remember(manifest: manifest(type: "static", events: [(0, "A", "One")]), url: url)
        XCTAssertEqual(DASHEventStreams.current(manifest: url, secondsPlayed: 11)?.tags.title, "One")
        DASHEventStreams.remember(manifest: manifest(type: "static", events: []), url: url)
        XCTAssertNil(DASHEventStreams.current(manifest: url, secondsPlayed: 11), "a reload without events forgets them")
    }
}
