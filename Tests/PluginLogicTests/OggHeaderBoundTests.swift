import FileSinkLogic
import Foundation
import OtonStreamFraming
import XCTest

/// Issue 39, N5: an Ogg comment header over the host's bound is recorded as an empty one, so the file
/// sink never holds it; the setup header and the audio after it stay playable (numbered on, CRCs right).
final class OggHeaderBoundTests: XCTestCase {
    private func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    private func identification() -> [UInt8] {
        [1] + Array("vorbis".utf8) + [0, 0, 0, 0, 2, 0x44, 0xAC, 0, 0, 0, 0, 0, 0, 0x80, 0x38, 1, 0, 0, 0, 0, 0, 0xB8, 1]
    }

    private func comment(bytes: Int) -> [UInt8] {
        let entry = Array("COMMENT=".utf8) + [UInt8](repeating: 0x78, count: bytes)
        return [3] + Array("vorbis".utf8) + le32(3) + Array("abc".utf8) + le32(1) + le32(entry.count) + entry + [1]
    }

    /// A Vorbis stream as libogg lays it out: identification alone, comment and setup on pages of their
    /// own (a page on which no packet ends has granule -1), then audio pages.
    private func stream(commentBytes: Int, serial: UInt32 = 9) -> (bytes: [UInt8], setup: [UInt8]) {
        let setup: [UInt8] = [5] + Array("vorbis".utf8) + [UInt8](repeating: 7, count: 4000)
        var pages = OggPageWriter.paginate([identification()], serial: serial, sequence: 0, granule: 0)
        pages[0][5] = 2
        pages[0] = OggPageWriter.sealed(pages[0])
        var headers = OggPageWriter.paginate([comment(bytes: commentBytes), setup], serial: serial, sequence: 1, granule: 0)
        for index in headers.indices where headers[index][27..<27 + Int(headers[index][26])].allSatisfy({ $0 == 255 }) {
            headers[index] = OggPageWriter.rewritten(headers[index], granule: -1)
        }
        pages += headers
        for index in 0..<5 {
            pages += OggPageWriter.paginate(
                [[UInt8](repeating: UInt8(index), count: 600)], serial: serial,
                sequence: UInt32(headers.count + 1 + index), granule: Int64(1024 * (index + 1)))
        }
        return (pages.flatMap { $0 }, setup)
    }

    private func frame(_ bytes: [UInt8]) -> (units: [StreamUnit], framer: OggPageFramer) {
        var framer = OggPageFramer()
        var units: [StreamUnit] = []
        for start in stride(from: 0, to: bytes.count, by: 50_000) { units += framer.push(Array(bytes[start..<min(start + 50_000, bytes.count)])) }
        return (units, framer)
    }

    func testACommentOverTheBoundIsReplacedAndTheStreamStaysWhole() throws {
        let (bytes, setup) = stream(commentBytes: 3_000_000)
        let (units, framer) = frame(bytes)
        XCTAssertEqual(framer.replacedComments, 1)
        let headers = units.filter(\.isCodecHeader)
        XCTAssertLessThan(headers.reduce(0) { $0 + $1.bytes.count }, 16_000, "the header pages kept are small")
        XCTAssertEqual(units.reduce(0) { $0 + $1.receivedLength }, bytes.count, "every received byte is accounted for")
        XCTAssertEqual(units.filter { !$0.isCodecHeader }.count, 5, "every audio page passes")
        let pages = units.compactMap { OggPage($0.bytes, at: 0) }
        XCTAssertEqual(pages.map(\.sequence), Array(0..<UInt32(pages.count)), "numbered without a hole")
        for unit in units { XCTAssertEqual(OggPageWriter.sealed(unit.bytes), unit.bytes, "every CRC is right") }
        // The header packets read back: an empty comment, then the setup as it was.
        var packets: [[UInt8]] = []
        var partial: [UInt8] = []
        for unit in units.dropFirst() where unit.isCodecHeader {
            let page = try XCTUnwrap(OggPage(unit.bytes, at: 0))
            var offset = page.headerLength
            for index in 0..<Int(unit.bytes[26]) {
                let length = Int(unit.bytes[27 + index])
                partial += unit.bytes[offset..<offset + length]
                offset += length
                if length < 255 { packets.append(partial); partial = [] }
            }
        }
        XCTAssertEqual(packets.count, 2)
        XCTAssertEqual(try XCTUnwrap(VorbisComments(packet: packets[0])).comments, [])
        XCTAssertEqual(packets[1], setup)
    }

    func testACommentWithinTheBoundPassesUnchanged() {
        let (bytes, _) = stream(commentBytes: 200_000)
        let (units, framer) = frame(bytes)
        XCTAssertEqual(framer.replacedComments, 0)
        XCTAssertEqual(units.flatMap(\.bytes), bytes, "the same bytes")
        XCTAssertEqual(units.filter(\.isCodecHeader).count, units.count - 5, "pages with granule -1 inside the headers are header pages")
    }

    func testEveryChainOfAChainedStreamIsBounded() {
        let first = stream(commentBytes: 1_000_000, serial: 1).bytes
        let second = stream(commentBytes: 10, serial: 2).bytes
        let third = stream(commentBytes: 1_000_000, serial: 3).bytes
        let (units, framer) = frame(first + second + third)
        XCTAssertEqual(framer.replacedComments, 2)
        XCTAssertEqual(units.filter(\.beginsLogicalStream).count, 3)
        XCTAssertLessThan(units.reduce(0) { $0 + $1.bytes.count }, 100_000)
        XCTAssertEqual(units.reduce(0) { $0 + $1.receivedLength }, first.count + second.count + third.count)
    }
}
