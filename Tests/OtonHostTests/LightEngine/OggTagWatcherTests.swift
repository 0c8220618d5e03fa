import FileSinkLogic
import OtonMedia
import OtonStreamFraming
import XCTest

/// The light engine's Ogg titles: read with the file sink's comment reader, leniently.
final class OggTagWatcherTests: XCTestCase {
    private func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    /// A comment packet that says it holds `count` comments (all of `entries` when nil).
    private func vorbisComments(_ entries: [[UInt8]], count: Int? = nil) -> [UInt8] {
        var packet: [UInt8] = [3] + Array("vorbis".utf8) + le32(4) + Array("test".utf8) + le32(count ?? entries.count)
        for entry in entries { packet += le32(entry.count) + entry }
        return packet + [1]
    }

    /// A Vorbis stream's first pages: identification (BOS), then the comment packet with a setup packet.
    private func stream(comments: [UInt8], serial: UInt32 = 5) -> [UInt8] {
        let identification: [UInt8] = [1] + Array("vorbis".utf8) + [UInt8](repeating: 0, count: 23)
        var pages = OggPageWriter.paginate([identification], serial: serial, sequence: 0, granule: 0)
        pages[0][5] = 2  // BOS
        pages[0] = OggPageWriter.sealed(pages[0])
        pages += OggPageWriter.paginate([comments, [5] + Array("vorbis".utf8) + [0, 0, 0]], serial: serial, sequence: 1, granule: 0)
        return pages.flatMap { $0 }
    }

    private func watch(_ bytes: [UInt8]) -> [OggTagWatcher.Tags] {
        var watcher = OggTagWatcher()
        return bytes.withUnsafeBytes { watcher.push($0) }
    }

    func testTitleAndArtistOfAComment() throws {
        let tags = watch(stream(comments: vorbisComments([Array("title=Song".utf8), Array("ARTIST=Band".utf8), Array("ENCODER=x".utf8)])))
        XCTAssertEqual(tags.count, 1)
        XCTAssertEqual(tags.first?.title, "Song")
        XCTAssertEqual(tags.first?.artist, "Band")
    }

    /// Several songs in one read (a server's burst): each title with where its chain began, so a
    /// timeshift ring notes it there (issue 54 §6), also when a chain began in an earlier read.
    func testEachTitleSaysWhereItsChainBegan() throws {
        let first = stream(comments: vorbisComments([Array("TITLE=One".utf8)]), serial: 5)
        let second = stream(comments: vorbisComments([Array("TITLE=Two".utf8)]), serial: 6)
        let third = stream(comments: vorbisComments([Array("TITLE=Three".utf8)]), serial: 7)
        var watcher = OggTagWatcher()
        let burst = (first + second).withUnsafeBytes { watcher.pushLocated($0) }
        XCTAssertEqual(burst.map(\.tags.title), ["One", "Two"])
        XCTAssertEqual(burst.map(\.at), [0, first.count])
        // The third chain's first page ends one read, its comment completes in the next.
        let cut = 40
        XCTAssertTrue(Array(third[..<cut]).withUnsafeBytes { watcher.pushLocated($0) }.isEmpty)
        let rest = Array(third[cut...]).withUnsafeBytes { watcher.pushLocated($0) }
        XCTAssertEqual(rest.map(\.tags.title), ["Three"])
        XCTAssertEqual(rest.map(\.at), [0], "it began before this read")
    }

    /// A list whose last comment runs past the packet still names its track on air (the file sink,
    /// which writes the list back, refuses it: that would drop a comment).
    func testACutListStillGivesTheTitlesBeforeTheCut() throws {
        var packet = vorbisComments([Array("TITLE=Song".utf8), Array("ARTIST=Band".utf8)], count: 3)
        packet.removeLast()  // the framing bit
        packet += le32(1000) + Array("COMMENT=cut".utf8)
        XCTAssertNil(VorbisComments(packet: packet), "the strict reading refuses the cut list")
        let lenient = try XCTUnwrap(VorbisComments.fields(ofPacket: packet[...]))
        XCTAssertEqual(lenient.codec, .vorbis)
        XCTAssertEqual(lenient.fields.map { String(decoding: $0, as: UTF8.self) }, ["TITLE=Song", "ARTIST=Band"])
        let tags = watch(stream(comments: packet))
        XCTAssertEqual(tags.first?.title, "Song")
        XCTAssertEqual(tags.first?.artist, "Band")
    }

    /// A title in a legacy code page (not UTF-8) is read as the ICY titles are.
    func testAWindows1251TitleIsDecoded() {
        let tags = watch(stream(comments: vorbisComments([Array("TITLE=".utf8) + [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2]])))
        XCTAssertEqual(tags.first?.title, "Привет")
    }

    /// A count that cannot be (more comments than the packet has room for) is no comment header.
    func testAnImpossibleCountIsNoHeader() {
        let packet = [3] + Array("vorbis".utf8) + le32(0) + le32(1_000_000)
        XCTAssertNil(VorbisComments.fields(ofPacket: packet[...]))
        XCTAssertEqual(watch(stream(comments: packet)), [])
    }
}
