import OtonHost
import OtonStreamFraming
import XCTest

/// An Ogg chain's headers kept for playback that starts inside it (docs/timeshift.md), on made-up pages.
final class TimeshiftOggHeadersTests: XCTestCase {
    /// A page: flags (0x02 first page), granule position, serial, a body of `body` bytes.
    private func page(flags: UInt8 = 0, granule: UInt64, serial: UInt32, body: Int, fill: UInt8 = 0xAA) -> [UInt8] {
        var bytes = Array("OggS".utf8) + [0, flags]
        for byte in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: granule >> (8 * UInt64(byte)))) }
        for byte in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: serial >> (8 * UInt32(byte)))) }
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // sequence number, checksum
        var lacing: [UInt8] = []
        var left = body
        while left >= 255 { lacing.append(255); left -= 255 }
        lacing.append(UInt8(left))
        bytes.append(UInt8(lacing.count))
        return bytes + lacing + [UInt8](repeating: fill, count: body)
    }

    /// A chain: three header pages (granule 0) and `audioPages` audio pages.
    private func chain(serial: UInt32, audioPages: Int) -> (bytes: [UInt8], headers: Int, pageStarts: [Int]) {
        var bytes = page(flags: 0x02, granule: 0, serial: serial, body: 30)
        bytes += page(granule: 0, serial: serial, body: 300)
        bytes += page(granule: 0, serial: serial, body: 3000)
        let headers = bytes.count
        var starts: [Int] = []
        for number in 0..<audioPages {
            starts.append(bytes.count)
            bytes += page(granule: UInt64(1024 * (number + 1)), serial: serial, body: 4000)
        }
        return (bytes, headers, starts)
    }

    private func feed(_ keeper: inout TimeshiftOggHeaders, _ bytes: [UInt8], at offset: UInt64, pieces: Int = 700) {
        var at = 0
        while at < bytes.count {
            let end = min(at + pieces, bytes.count)
            bytes[at..<end].withUnsafeBytes { keeper.received($0, at: offset + UInt64(at)) }
            at = end
        }
    }

    /// The first page at or after an offset, as the ring finds it in its bytes.
    private func pageStart(in bytes: [UInt8]) -> (UInt64) -> UInt64? {
        { offset in OggPage.next(in: bytes, from: Int(offset)).map { UInt64($0.start) } }
    }

    func testAStartInsideAChainGetsItsHeadersThenItsNextPage() {
        let (bytes, headers, starts) = chain(serial: 7, audioPages: 10)
        var keeper = TimeshiftOggHeaders()
        feed(&keeper, bytes, at: 0)
        XCTAssertEqual(keeper.chains.count, 1)
        XCTAssertEqual(keeper.chains[0].headersEnd, UInt64(headers))
        XCTAssertEqual(keeper.chains[0].headers, Array(bytes[..<headers]), "the header pages as received")

        let start = keeper.start(at: UInt64(starts[4] + 100), pageStart: pageStart(in: bytes))
        XCTAssertEqual(start.offset, UInt64(starts[5]), "the next page boundary, not the middle of a page")
        XCTAssertEqual(start.prefix, Array(bytes[..<headers]))

        let inHeaders = keeper.start(at: 50, pageStart: pageStart(in: bytes))
        XCTAssertEqual(inHeaders, .init(offset: 0, prefix: []), "inside the headers: from the chain's start")
    }

    func testEachChainHasItsOwnHeadersAndAStartNearTheNextChainTakesThatChain() {
        let one = chain(serial: 1, audioPages: 3), two = chain(serial: 2, audioPages: 3)
        let bytes = one.bytes + two.bytes
        var keeper = TimeshiftOggHeaders()
        feed(&keeper, bytes, at: 0, pieces: 333)
        XCTAssertEqual(keeper.chains.map(\.serial), [1, 2])
        let second = keeper.start(at: UInt64(one.bytes.count + two.pageStarts[1] + 10), pageStart: pageStart(in: bytes))
        XCTAssertEqual(second.prefix, Array(two.bytes[..<two.headers]), "the second chain's headers")
        let last = keeper.start(at: UInt64(one.pageStarts[2] + 10), pageStart: pageStart(in: bytes))
        XCTAssertEqual(last, .init(offset: UInt64(one.bytes.count), prefix: []), "past the first chain's last page: the next chain from its start")
    }

    func testAStreamThatIsNotOggIsNotWatched() {
        let mp3 = [UInt8](repeating: 0xFF, count: 10) + chain(serial: 3, audioPages: 2).bytes
        var keeper = TimeshiftOggHeaders()
        feed(&keeper, mp3, at: 0)
        XCTAssertTrue(keeper.chains.isEmpty)
        XCTAssertEqual(keeper.start(at: 500, pageStart: pageStart(in: mp3)), .init(offset: 500, prefix: []))
    }

    func testPruningKeepsTheChainPlayingAtTheRingsStartAndANewConnectionIsWatchedAgain() {
        let one = chain(serial: 1, audioPages: 3), two = chain(serial: 2, audioPages: 3)
        var keeper = TimeshiftOggHeaders()
        feed(&keeper, one.bytes, at: 0)
        keeper.connectionStarted()
        feed(&keeper, two.bytes, at: UInt64(one.bytes.count))
        XCTAssertEqual(keeper.chains.map(\.serial), [1, 2])
        keeper.prune(before: UInt64(one.pageStarts[1]))
        XCTAssertEqual(keeper.chains.map(\.serial), [1, 2], "the first chain still plays at the ring's start")
        keeper.prune(before: UInt64(one.bytes.count + 5))
        XCTAssertEqual(keeper.chains.map(\.serial), [2])
    }

    func testHeadersLargerThanTheBoundAreNotKept() {
        var bytes = page(flags: 0x02, granule: 0, serial: 9, body: 30)
        while bytes.count <= TimeshiftOggHeaders.maxChainBytes { bytes += page(granule: UInt64.max, serial: 9, body: 65_000) }
        let audio = bytes.count
        bytes += page(granule: 100, serial: 9, body: 100) + page(granule: 200, serial: 9, body: 100)
        var keeper = TimeshiftOggHeaders()
        feed(&keeper, bytes, at: 0, pieces: 10_000)
        XCTAssertEqual(keeper.chains.count, 1)
        XCTAssertTrue(keeper.chains[0].headers.isEmpty, "bounded: a chain's headers over the bound are dropped")
        XCTAssertEqual(keeper.start(at: UInt64(audio + 5), pageStart: pageStart(in: bytes)).prefix, [])
    }

    func testNativeFLACKeepsItsStreamHeaderForAStartAfterIt() {
        // "fLaC", STREAMINFO (34 bytes), a 5,000-byte PADDING block marked last, then frames.
        var header = Array("fLaC".utf8) + [0x00, 0, 0, 34] + [UInt8](repeating: 0x11, count: 34)
        header += [0x81, 0x00, 0x13, 0x88] + [UInt8](repeating: 0, count: 5000)
        let bytes = header + [UInt8](repeating: 0xF8, count: 20_000)
        var keeper = TimeshiftOggHeaders()
        feed(&keeper, bytes, at: 0, pieces: 1000)
        XCTAssertEqual(keeper.chains.count, 1)
        XCTAssertEqual(keeper.chains[0].headersEnd, UInt64(header.count))
        XCTAssertEqual(
            keeper.start(at: 12_345, pageStart: { _ in nil }), .init(offset: 12_345, prefix: header),
            "the header, then the bytes from the offset asked (the parser finds the next frame)")
        XCTAssertEqual(keeper.start(at: 100, pageStart: { _ in nil }), .init(offset: 0, prefix: []), "inside the header: from its start")
    }
}
