import FileSinkLogic
import Foundation
import OtonStreamFraming
import XCTest

/// The file sink's framing of the stream shapes of issue 39 §3 and N15, on bytes built here: native
/// FLAC frames, an MP3 stream's Xing frame, a chained Ogg that changes codec, a codec change within
/// a connection. (The integration tests record the same shapes from a real server.)
final class StreamShapeLogicTests: XCTestCase {
    /// MPEG-1 layer III, 128 kbit/s, 44.1 kHz, stereo: 417 bytes.
    private func mp3Frame(fill: UInt8) -> [UInt8] {
        [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: fill, count: 413)
    }

    private func xingFrame() -> [UInt8] {
        var frame = mp3Frame(fill: 0)
        frame.replaceSubrange(36..<40, with: Array("Xing".utf8))
        frame[43] = 0x03
        frame[47] = 0x10  // 4096 frames: the whole stream's count
        return frame
    }

    private func oggPage(serial: UInt32, sequence: UInt32, granule: Int64, bos: Bool = false, body: [UInt8]) -> [UInt8] {
        func le(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) } }
        let lacing: [UInt8] = Array(repeating: 255, count: body.count / 255) + [UInt8(body.count % 255)]
        return OggPageWriter.sealed(
            Array("OggS".utf8) + [0, bos ? 2 : 0] + le(UInt64(bitPattern: granule), 8) + le(UInt64(serial), 4)
                + le(UInt64(sequence), 4) + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing + body)
    }

    private let opusHead: [UInt8] = Array("OpusHead".utf8) + [1, 2, 0x38, 1, 0x80, 0xBB, 0, 0, 0, 0, 0]
    private let vorbisID: [UInt8] = [1] + Array("vorbis".utf8) + [0, 0, 0, 0, 2, 0x44, 0xAC, 0, 0] + [UInt8](repeating: 0, count: 14)

    /// A FLAC stream: "fLaC", a STREAMINFO that says 44.1 kHz and 1,000,000 samples with an MD5, a SEEKTABLE,
    /// then `count` frames of 4096 samples (fixed block size, frame numbers from `first`).
    private func flacStream(frames count: Int, first: Int = 0) -> [UInt8] {
        var info: [UInt8] = [0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0]
        info += [0x0A, 0xC4, 0x42, 0xF0, 0x00, 0x0F, 0x42, 0x40]  // 44100 Hz, 2 channels, 16 bit, 1,000,000 samples
        info += [UInt8](repeating: 0xAB, count: 16)  // MD5
        var bytes = Array("fLaC".utf8) + [0x00, 0, 0, 34] + info + [0x83, 0, 0, 18] + [UInt8](repeating: 0, count: 18)
        for number in first..<first + count {
            var frame: [UInt8] = [0xFF, 0xF8, 0xC9, 0x18, UInt8(number & 0x7F)]  // 4096 samples, 44.1 kHz, stereo, 16 bit
            frame.append(frame.reduce(UInt8(0)) { crc8($0, $1) })
            frame += (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7 + number) } + [0xFF, 0xF8]  // a sync code inside the audio
            let crc = frame.reduce(UInt16(0)) { crc16($0, $1) }
            bytes += frame + [UInt8(crc >> 8), UInt8(crc & 0xFF)]
        }
        return bytes
    }

    private func crc8(_ crc: UInt8, _ byte: UInt8) -> UInt8 {
        var value = crc ^ byte
        for _ in 0..<8 { value = value & 0x80 != 0 ? (value << 1) ^ 0x07 : value << 1 }
        return value
    }

    private func crc16(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        var value = crc ^ UInt16(byte) << 8
        for _ in 0..<8 { value = value & 0x8000 != 0 ? (value << 1) ^ 0x8005 : value << 1 }
        return value
    }

    func testNativeFLACIsFramedWithItsHeaderAndTheFileSaysItsOwnLength() {
        var framer = FLACFramer()
        let stream = flacStream(frames: 6)
        var units: [StreamUnit] = []
        for start in stride(from: 0, to: stream.count, by: 97) { units += framer.push(Array(stream[start..<min(start + 97, stream.count)])) }
        XCTAssertEqual(units.count, 1 + 5, "the header and every frame but the last (its end is the next frame's start)")
        let header = units[0]
        XCTAssertTrue(header.isCodecHeader)
        XCTAssertEqual(header.bytes.count, 4 + 4 + 34, "the SEEKTABLE is left out")
        XCTAssertEqual(header.receivedLength, 4 + 4 + 34 + 4 + 18)
        XCTAssertEqual(header.bytes[4], 0x80, "STREAMINFO is now the last block")
        XCTAssertEqual(header.bytes[21] & 0x0F, 0, "total samples unknown")
        XCTAssertEqual(Array(header.bytes[22..<42]), [UInt8](repeating: 0, count: 20), "total samples and MD5 unknown")
        XCTAssertEqual(units.dropFirst().map(\.durationNanoseconds), [Int64](repeating: 4096 * 1_000_000_000 / 44100, count: 5))
        XCTAssertEqual(units.dropFirst().map(\.bytes.count), [Int](repeating: 310, count: 5), "a sync code inside a frame is not a cut")
        XCTAssertEqual(StreamContainer(caps: "audio/x-flac").fileExtension(caps: "audio/x-flac"), "flac")

        let patch = FLACStreamInfo.totalSamplesPatch(head: Array(header.bytes.prefix(42)), durationNanoseconds: 5 * 4096 * 1_000_000_000 / 44100)
        XCTAssertEqual(patch?.samples, 5 * 4096)
        XCTAssertEqual(patch?.offset, 18)
    }

    /// A native FLAC file gets its tags as Ogg files do: a VORBIS_COMMENT block after STREAMINFO (the
    /// stream's own comments kept beside them); the frames pass unchanged.
    func testNativeFLACIsTaggedWithAVorbisCommentBlock() throws {
        var framer = FLACFramer()
        let stream = flacStream(frames: 4)
        let units = framer.push(stream)
        let file = units.flatMap(\.bytes)
        var rewriter = FLACTagRewriter(tags: .init(title: "Song Two", artist: "Artist B", album: "Oton FM", comment: "http://s/"))
        var output: [UInt8] = []
        for start in stride(from: 0, to: file.count, by: 7) { output += rewriter.push(Array(file[start..<min(start + 7, file.count)])) }
        output += rewriter.finish()
        XCTAssertEqual(Array(output.prefix(4)), Array("fLaC".utf8))
        XCTAssertEqual(output[4], 0x00, "STREAMINFO first, no longer the last block")
        let commentAt = 4 + 4 + 34
        XCTAssertEqual(output[commentAt], 0x84, "then the VORBIS_COMMENT block, the last")
        let length = Int(output[commentAt + 1]) << 16 | Int(output[commentAt + 2]) << 8 | Int(output[commentAt + 3])
        let comments = try XCTUnwrap(VorbisComments(packet: Array(output[commentAt..<commentAt + 4 + length])))
        XCTAssertEqual(comments.value("TITLE"), "Song Two")
        XCTAssertEqual(comments.value("ARTIST"), "Artist B")
        XCTAssertEqual(comments.value("ALBUM"), "Oton FM")
        XCTAssertEqual(comments.value("COMMENT"), "http://s/")
        XCTAssertEqual(Array(output[(commentAt + 4 + length)...]), Array(file[(4 + 4 + 34)...]), "the frames unchanged")

        // A stream comment block is kept and the tags set in it; a head that is not FLAC passes unchanged.
        var again = FLACTagRewriter(tags: .init(title: "Three"))
        let retagged = again.push(output) + again.finish()
        let second = try XCTUnwrap(
            VorbisComments(packet: Array(retagged[commentAt..<commentAt + 4 + Int(retagged[commentAt + 3]) + (Int(retagged[commentAt + 2]) << 8)])))
        XCTAssertEqual(second.value("TITLE"), "Three")
        XCTAssertEqual(second.value("ARTIST"), "Artist B")
        var other = FLACTagRewriter(tags: .init(title: "x"))
        let joined = Array(file[(4 + 4 + 34)...])
        XCTAssertEqual(other.push(joined) + other.finish(), joined)
    }

    func testAnMP3StreamsXingFrameIsLeftOutAndAVBRFileGetsItsOwn() {
        var framer = MPEGAudioFramer()
        let units = framer.push(xingFrame() + mp3Frame(fill: 1) + mp3Frame(fill: 2) + mp3Frame(fill: 3))
        XCTAssertEqual(units.map(\.receivedLength), [417, 417, 417, 417])
        XCTAssertEqual(units.map(\.bytes.count), [0, 417, 417, 417], "the Xing frame holds no audio and is not written")

        var reader = StreamUnitReader()
        let reading = reader.read(
            TrackSplitter.Buffer(
                bytes: xingFrame() + mp3Frame(fill: 1) + mp3Frame(fill: 2) + mp3Frame(fill: 3),
                caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3", newConnection: true))
        XCTAssertEqual(reading.units.map(\.offset), [417, 834, 1251], "the frames keep their place in the stream")

        var cbr = XingFrame()
        cbr.count(mp3Frame(fill: 1) + mp3Frame(fill: 2))
        XCTAssertNil(cbr.frame(), "a CBR file's length follows from its size")
        var vbr = XingFrame()
        var loud = mp3Frame(fill: 4)
        loud[2] = 0xB0  // 192 kbit/s: 626 bytes
        loud += [UInt8](repeating: 4, count: 626 - 417)
        vbr.count(mp3Frame(fill: 1) + loud + mp3Frame(fill: 2) + [0xFF, 0xFB, 0x90, 0x64])
        let frame = vbr.frame()
        XCTAssertEqual(frame.map { Array($0[36..<40]) }, Array("Xing".utf8))
        XCTAssertEqual(frame.map { Array($0[44..<48]) }, [0, 0, 0, 3], "three frames")
    }

    func testAChainedOggThatChangesCodecNamesEachFileAfterItsChain() {
        var splitter = TrackSplitter()
        let opus =
            oggPage(serial: 1, sequence: 0, granule: 0, bos: true, body: opusHead)
            + oggPage(serial: 1, sequence: 1, granule: 0, body: Array("OpusTags".utf8) + [0, 0, 0, 0, 0, 0, 0, 0])
            + oggPage(serial: 1, sequence: 2, granule: 960, body: [1, 2, 3]) + oggPage(serial: 1, sequence: 3, granule: 1920, body: [1, 2, 3])
        let vorbis = oggPage(serial: 2, sequence: 0, granule: 0, bos: true, body: vorbisID) + oggPage(serial: 2, sequence: 1, granule: 4410, body: [5])
        let actions = splitter.receive(TrackSplitter.Buffer(bytes: opus + vorbis, caps: "audio/ogg, codec=(string)opus", newConnection: true))
        let begun = actions.compactMap { action -> String? in
            if case let .begin(segment) = action { return segment.container.fileExtension(caps: segment.caps) }
            return nil
        }
        XCTAssertEqual(begun, ["opus", "ogg"], "the Vorbis chain is not an .opus file")
    }

    func testACodecChangeWithinTheConnectionIsAGapIntoTheNewFormat() {
        var reader = StreamUnitReader()
        let mp3 = mp3Frame(fill: 1) + mp3Frame(fill: 2) + mp3Frame(fill: 3)
        let ogg = oggPage(serial: 9, sequence: 0, granule: 0, bos: true, body: vorbisID) + oggPage(serial: 9, sequence: 1, granule: 4410, body: [5])
        let readings = reader.readings(TrackSplitter.Buffer(bytes: mp3 + ogg, caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3", newConnection: true))
        XCTAssertEqual(readings.map(\.container), [.mpegAudio, .ogg])
        XCTAssertEqual(readings.map(\.gap), [.newConnection, .formatChanged])
        XCTAssertEqual(readings[0].units.map(\.unit.bytes.count), [417, 417, 417], "no Ogg byte in an MP3 unit")
        XCTAssertEqual(readings[1].switchedFrom, .mpegAudio)
        XCTAssertEqual(readings[1].units.first?.offset, UInt64(mp3.count))
        XCTAssertTrue(readings[1].units.first?.unit.beginsLogicalStream ?? false)

        // The tap still says MP3: the next buffer of the connection stays Ogg.
        let next = reader.readings(
            TrackSplitter.Buffer(
                bytes: oggPage(serial: 9, sequence: 2, granule: 8820, body: [6]),
                caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3", offset: UInt64(mp3.count + ogg.count)))
        XCTAssertEqual(next.map(\.container), [.ogg])
        XCTAssertNil(next[0].gap)
        XCTAssertEqual(next[0].units.count, 1)

        // Noise that merely starts like an Ogg page (a wrong CRC) is skipped, as before.
        var noisy = StreamUnitReader()
        var fake = oggPage(serial: 9, sequence: 0, granule: 0, bos: true, body: vorbisID)
        fake[22] ^= 0xFF
        let kept = noisy.readings(TrackSplitter.Buffer(bytes: mp3 + fake + mp3, caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3", newConnection: true))
        XCTAssertEqual(kept.map(\.container), [.mpegAudio])
    }
}
