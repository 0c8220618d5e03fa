import FileSinkLogic
import Foundation
import OtonStreamFraming
import XCTest

/// Ogg files that carry their track's tags and start at time 0: CRC, comment packets, the rewriter.
final class OggTagRewriterTests: XCTestCase {
    /// The first page of a file vorbisenc ! oggmux wrote (GStreamer 1.22): its CRC is the reference.
    private let realPage: [UInt8] = [
        79, 103, 103, 83, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 108, 200, 60, 124, 0, 0, 0, 0, 155, 65, 161, 89, 1, 30,
        1, 118, 111, 114, 98, 105, 115, 0, 0, 0, 0, 1, 68, 172, 0, 0, 0, 0, 0, 0, 128, 56, 1, 0, 0, 0, 0, 0,
        184, 1,
    ]

    private func comments(_ entries: [String], vendor: String = "Xiph.Org libVorbis I 20200704") -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        var packet: [UInt8] = [3] + Array("vorbis".utf8) + le32(vendor.utf8.count) + Array(vendor.utf8) + le32(entries.count)
        for entry in entries { packet += le32(entry.utf8.count) + Array(entry.utf8) }
        return packet + [1]
    }

    /// Pages of a Vorbis stream cut in the middle: headers (sequence 0, 1), then audio pages from sequence 40 on.
    private func recordedFile(serial: UInt32 = 77, audioGranules: [Int64]) -> [UInt8] {
        let id = Array(realPage[28...])
        let setup: [UInt8] = [5] + Array("vorbis".utf8) + [UInt8](repeating: 9, count: 3000)
        var file = OggPageWriter.paginate([id], serial: serial, sequence: 0, granule: 0)
        file[0][5] = 2  // BOS
        file[0] = OggPageWriter.sealed(file[0])
        file += OggPageWriter.paginate([comments(["TITLE=Old", "ARTIST=Old Artist", "ENCODER=x"]), setup], serial: serial, sequence: 1, granule: 0)
        for (index, granule) in audioGranules.enumerated() {
            file += OggPageWriter.paginate([[UInt8](repeating: UInt8(index), count: 700)], serial: serial, sequence: UInt32(40 + index), granule: granule)
        }
        return file.flatMap { $0 }
    }

    private func pages(_ bytes: [UInt8]) -> [(OggPage, [UInt8])] {
        var result: [(OggPage, [UInt8])] = []
        var at = 0
        while let page = OggPage(bytes, at: at), at + page.length <= bytes.count {
            result.append((page, Array(bytes[at..<at + page.length])))
            at += page.length
        }
        XCTAssertEqual(at, bytes.count, "whole pages only")
        return result
    }

    func testCRCMatchesWhatLibOggWrote() {
        XCTAssertEqual(OggPageWriter.sealed(realPage), realPage)
        var broken = realPage
        broken[40] ^= 1
        XCTAssertNotEqual(OggPageWriter.sealed(broken)[22..<26], realPage[22..<26])
    }

    func testCommentsAreReplacedAndTheRestKept() throws {
        var parsed = try XCTUnwrap(VorbisComments(packet: comments(["title=Old", "ENCODER=x"])))
        parsed.set("TITLE", "Песня")
        parsed.set("ALBUM", nil)
        XCTAssertEqual(parsed.comments, ["ENCODER=x", "TITLE=Песня"])
        let again = try XCTUnwrap(VorbisComments(packet: parsed.packet))
        XCTAssertEqual(again, parsed)
        XCTAssertEqual(again.value("title"), "Песня")
        XCTAssertNil(VorbisComments(packet: [3] + Array("vorbis".utf8) + [255, 255, 255, 255]), "a vendor length past the end")
    }

    func testRewrittenFileHasTheTagsContiguousPagesAndStartsAtZero() throws {
        let original = recordedFile(audioGranules: [100_000, 101_024, 102_048, 103_072])
        var rewriter = OggTagRewriter(
            tags: .init(title: "Song Two", artist: "Artist B", album: "Oton FM", comment: "http://s/"),
            granuleBase: 99_000)
        var output: [UInt8] = []
        for start in stride(from: 0, to: original.count, by: 333) { output += rewriter.push(Array(original[start..<min(start + 333, original.count)])) }
        output += rewriter.finish()
        let result = pages(output)
        XCTAssertEqual(result.map { $0.0.sequence }, Array(0..<UInt32(result.count)), "renumbered without a hole")
        for (_, bytes) in result { XCTAssertEqual(OggPageWriter.sealed(bytes), bytes, "every CRC is right") }
        let audio = result.filter { $0.0.granule > 0 }
        XCTAssertEqual(audio.map { $0.0.granule }, [1000, 2024, 3048, 4072], "granules move back by the cut")
        // Read the comment packet back out of the header pages.
        var packet: [UInt8] = []
        var packets: [[UInt8]] = []
        for (page, bytes) in result.prefix(while: { $0.0.granule == 0 }) {
            var offset = page.headerLength
            for index in 0..<Int(bytes[26]) {
                let length = Int(bytes[27 + index])
                packet += bytes[offset..<offset + length]
                offset += length
                if length < 255 { packets.append(packet); packet = [] }
            }
        }
        XCTAssertEqual(packets.count, 3)
        let tags = try XCTUnwrap(VorbisComments(packet: packets[1]))
        XCTAssertEqual(tags.value("TITLE"), "Song Two")
        XCTAssertEqual(tags.value("ARTIST"), "Artist B")
        XCTAssertEqual(tags.value("ALBUM"), "Oton FM")
        XCTAssertEqual(tags.value("ENCODER"), "x", "other comments stay")
        XCTAssertEqual(packets[2].count, 3007, "the setup header is untouched")
    }

    func testUnknownCutPositionIsEstimatedAndAStreamFromItsStartIsLeftAtZero() {
        func firstGranule(_ granules: [Int64]) -> Int64? {
            var rewriter = OggTagRewriter(tags: .init(title: "T"), granuleBase: nil)
            let output = rewriter.push(recordedFile(audioGranules: granules)) + rewriter.finish()
            return pages(output).first { $0.0.granule > 0 }?.0.granule
        }
        XCTAssertEqual(firstGranule([500_000, 501_024, 502_048]), 1024, "joined mid-stream: the first page is as long as the second")
        XCTAssertEqual(firstGranule([960, 1984, 3008]), 960, "a stream that starts here keeps its granules")
    }

    func testOtherCodecsPassUnchanged() {
        let speex = OggPageWriter.paginate([Array("Speex   ".utf8) + [UInt8](repeating: 1, count: 72)], serial: 5, sequence: 0, granule: 0)
        let file = (speex + OggPageWriter.paginate([[1, 2, 3]], serial: 5, sequence: 1, granule: 320)).flatMap { $0 }
        var rewriter = OggTagRewriter(tags: .init(title: "T"), granuleBase: 100)
        XCTAssertEqual(rewriter.push(file) + rewriter.finish(), file)
    }

    /// FLAC in Ogg (the mapping packet "\u{7F}FLAC" with STREAMINFO, then a VORBIS_COMMENT block):
    /// tagged and moved back to 0 like Vorbis; a FLAC file once read as the stream's 17 minutes.
    func testFLACInOggIsTaggedAndStartsAtZero() throws {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        let streamInfo: [UInt8] = [0x00, 0x00, 0x00, 34] + [16, 0, 16, 0, 0, 0, 14, 0, 48, 0] + [0x0A, 0xC4, 0x42, 0xF0] + [UInt8](repeating: 0, count: 20)
        let mapping: [UInt8] = [0x7F] + Array("FLAC".utf8) + [1, 0, 0, 1] + Array("fLaC".utf8) + streamInfo
        let vendor = Array("reference libFLAC 1.4.2".utf8)
        let body = le32(vendor.count) + vendor + le32(1) + le32("TITLE=Old".utf8.count) + Array("TITLE=Old".utf8)
        let commentBlock: [UInt8] = [0x84, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body  // last block, type 4
        var file = OggPageWriter.paginate([mapping], serial: 9, sequence: 0, granule: 0)
        file[0][5] = 2  // BOS
        file[0] = OggPageWriter.sealed(file[0])
        file += OggPageWriter.paginate([commentBlock], serial: 9, sequence: 1, granule: 0)
        for (index, granule) in [44_100 * 1020, 44_100 * 1020 + 4608, 44_100 * 1020 + 9216].enumerated() {
            file += OggPageWriter.paginate(
                [[0xFF, 0xF8] + [UInt8](repeating: UInt8(index), count: 600)], serial: 9, sequence: UInt32(500 + index), granule: Int64(granule))
        }
        var rewriter = OggTagRewriter(tags: .init(title: "Song Two", artist: "Artist B"), granuleBase: nil)
        let result = pages(rewriter.push(file.flatMap { $0 }) + rewriter.finish())
        XCTAssertEqual(result.map { $0.0.sequence }, Array(0..<UInt32(result.count)), "renumbered without a hole")
        XCTAssertEqual(result.filter { $0.0.granule > 0 }.map { $0.0.granule }, [4608, 9216, 13824], "from 0, not from 17 minutes in")
        let header = result[1].1
        let packet = Array(header[result[1].0.headerLength...])
        let tags = try XCTUnwrap(VorbisComments(packet: packet), "the comment block is still a FLAC metadata block")
        XCTAssertEqual(tags.codec, .flac)
        XCTAssertEqual(tags.value("TITLE"), "Song Two")
        XCTAssertEqual(tags.value("ARTIST"), "Artist B")
        XCTAssertEqual(packet[0], 0x84, "the last-block flag and type are kept")
        XCTAssertEqual(Int(packet[1]) << 16 | Int(packet[2]) << 8 | Int(packet[3]), packet.count - 4, "the block length is the new body's")
    }
}
