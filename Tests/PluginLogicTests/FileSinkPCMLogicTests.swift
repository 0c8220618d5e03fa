import FileSinkLogic
import Foundation
import XCTest

/// WAV recording and moved cuts: PCM framing, the WAV layout, the silence search and padding.
final class FileSinkPCMLogicTests: XCTestCase {
    private let caps = "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, rate=(int)44100, channels=(int)2"

    /// `seconds` of stereo S16LE at 44.1 kHz: a 440 Hz tone at `amplitude` (0 = digital silence).
    private func pcm(seconds: Double, amplitude: Double) -> [UInt8] {
        let frames = Int(seconds * 44100)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * 4)
        for index in 0..<frames {
            let value = Int16(amplitude * 32000 * sin(2 * Double.pi * 440 * Double(index) / 44100))
            let le = [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
            bytes += le + le
        }
        return bytes
    }

    private func buffer(_ bytes: [UInt8], offset: UInt64, first: Bool = false) -> TrackSplitter.Buffer {
        TrackSplitter.Buffer(bytes: bytes, caps: caps, newConnection: first, offset: offset, connection: 1)
    }

    func testPCMFormatIsReadFromCapsAndRefusesOtherSamples() {
        XCTAssertEqual(PCMFormat(caps: caps), PCMFormat(rate: 44100, channels: 2))
        XCTAssertEqual(PCMFormat(caps: "audio/x-raw,format=S16LE,rate=48000,channels=1"), PCMFormat(rate: 48000, channels: 1))
        XCTAssertNil(PCMFormat(caps: "audio/x-raw, format=(string)F32LE, rate=(int)44100, channels=(int)2"))
        XCTAssertNil(PCMFormat(caps: "audio/x-raw, format=(string)S16LE, rate=(int)0, channels=(int)2"))
        XCTAssertEqual(StreamContainer(caps: caps), .pcm)
        XCTAssertEqual(StreamContainer.pcm.fileExtension(caps: caps), "wav")
    }

    func testPCMFramerCutsTenMillisecondUnitsWithTheirLoudness() {
        var framer = PCMFramer(format: PCMFormat(rate: 44100, channels: 2))
        let loud = pcm(seconds: 0.1, amplitude: 1)
        let units = framer.push(Array(loud[0..<1001])) + framer.push(Array(loud[1001...])) + framer.push(pcm(seconds: 0.05, amplitude: 0))
        XCTAssertEqual(units.count, 15)
        XCTAssertTrue(units.allSatisfy { $0.bytes.count == 441 * 4 && $0.durationNanoseconds == 10_000_000 })
        XCTAssertEqual(units[0].level ?? 0, 0.5 * pow(32000.0 / 32768, 2), accuracy: 0.02, "a full sine has a mean square of ½")
        XCTAssertEqual(units[14].level, 0)
        XCTAssertEqual(framer.flush().count, 0)
    }

    func testWAVHeaderIsAValidRIFFWithItsSizesAndTagsInPlace() throws {
        let format = PCMFormat(rate: 44100, channels: 2)
        var file = WAVLayout.header(format)
        XCTAssertEqual(file.count, WAVLayout.dataOffset)
        file += pcm(seconds: 0.5, amplitude: 0.5)
        for patch in WAVLayout.sizePatches(dataBytes: UInt64(file.count - WAVLayout.dataOffset)) {
            file.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
        }
        let region = WAVLayout.tagRegion(.init(title: "Песня", artist: "Artist", album: "Oton FM", comment: "http://x/"))
        XCTAssertEqual(region.count, WAVLayout.tagRegionSize)
        file.replaceSubrange(WAVLayout.tagRegionOffset..<WAVLayout.tagRegionOffset + region.count, with: region)
        func u32(_ at: Int) -> Int { Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16 | Int(file[at + 3]) << 24 }
        XCTAssertEqual(String(decoding: file[0..<4], as: UTF8.self), "RIFF")
        XCTAssertEqual(u32(4), file.count - 8)
        // Walk the chunks as a reader would.
        var at = 12
        var chunks: [String: (Int, Int)] = [:]
        while at + 8 <= file.count {
            let id = String(decoding: file[at..<at + 4], as: UTF8.self)
            let size = u32(at + 4)
            chunks[id] = (at + 8, size)
            at += 8 + size + size % 2
        }
        XCTAssertEqual(at, file.count, "the chunks fill the file exactly")
        XCTAssertEqual(Set(chunks.keys), ["fmt ", "LIST", "JUNK", "data"])
        XCTAssertEqual(chunks["data"]?.1, 88200 * 2 / 2 * 1, "0.5 s of 16-bit stereo")
        let list = try XCTUnwrap(chunks["LIST"])
        XCTAssertEqual(String(decoding: file[list.0..<list.0 + 4], as: UTF8.self), "INFO")
        var tags: [String: String] = [:]
        var item = list.0 + 4
        while item < list.0 + list.1 {
            let size = u32(item + 4)
            let text = file[item + 8..<item + 8 + size].prefix { $0 != 0 }
            tags[String(decoding: file[item..<item + 4], as: UTF8.self)] = String(decoding: text, as: UTF8.self)
            item += 8 + size + size % 2
        }
        XCTAssertEqual(tags, ["INAM": "Песня", "IART": "Artist", "IPRD": "Oton FM", "ICMT": "http://x/"])
        XCTAssertEqual(WAVLayout.tagRegion(.init(title: String(repeating: "ж", count: 5000))).count, WAVLayout.tagRegionSize, "long tags are cut to fit")
    }

    func testWAVSplitsOnTheSampleAtATitleAndAtTheSizeLimit() {
        var splitter = TrackSplitter()
        splitter.maxSegmentBytes = 441 * 4 * 50  // 0.5 s
        let second = pcm(seconds: 1, amplitude: 0.3)
        var actions = splitter.receive(buffer(second, offset: 0, first: true))
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))
        actions += splitter.receive(buffer(Array(second[0..<40000]), offset: 176_400))
        actions += splitter.finish()
        let begins = actions.compactMap {
            if case let .begin(segment) = $0 { return segment }; return nil
        }
        XCTAssertEqual(begins.map(\.streamOffset), [0, 88200, 176_400])
        XCTAssertEqual(begins[2].metadata?.title, "Two")
        XCTAssertTrue(begins[2].startedAtBoundary, "Two starts at the title change, on the next sample")
        XCTAssertFalse(begins[1].startedAtBoundary, "the second half second of One is a continuation after the size limit")
        let written = actions.reduce(0) {
            if case let .write(_, bytes, _) = $1 { return $0 + bytes.count }; return $0
        }
        XCTAssertEqual(written, 176_400 + 40000 / 1764 * 1764, "every whole 10 ms lands in exactly one file")
        XCTAssertEqual(ends(actions).map(\.0), [nil, "One", "Two"], "the continuation carries on, then the title claims it")
    }

    func testTheFirstTitleOfAConnectionNamesTheAudioDecodedBeforeIt() {
        // The PCM tap starts after the decoder: the station-only event and often the title come before the audio.
        var splitter = TrackSplitter()
        var actions = splitter.track(TrackMetadata(sequence: 0, station: "Oton FM"))
        actions += splitter.receive(buffer(pcm(seconds: 1, amplitude: 0.3), offset: 0, first: true))
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.receive(buffer(pcm(seconds: 1, amplitude: 0.3), offset: 176_400))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))
        actions += splitter.receive(buffer(pcm(seconds: 1, amplitude: 0.3), offset: 352_800))
        actions += splitter.finish()
        XCTAssertEqual(ends(actions).map(\.0), ["One", "Two"], "no second-long untitled file, and Two is a real cut")
        XCTAssertEqual(ends(actions).map(\.1), [false, false])
    }

    /// One second of tone, then `silenceAt` seconds later a quiet gap of 0.3 s, the title change at 2 s.
    func testSilenceSearchMovesTheCutIntoTheQuietGapNearTheTitle() {
        var splitter = TrackSplitter(aligner: CutAligner(window: 2_000_000_000, pre: 0, post: 0))
        var audio = pcm(seconds: 2.8, amplitude: 0.5)  // 0 … 2.8 s
        audio += pcm(seconds: 0.3, amplitude: 0)  // 2.8 … 3.1 s: silence, 0.8 s after the title
        audio += pcm(seconds: 3, amplitude: 0.5)  // 3.1 … 6.1 s
        let split = 2 * 176_400
        var actions = splitter.receive(buffer(Array(audio[0..<split]), offset: 0, first: true))
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))
        actions += splitter.receive(buffer(Array(audio[split...]), offset: UInt64(split)))
        actions += splitter.finish()
        let begins = actions.compactMap {
            if case let .begin(segment) = $0 { return segment }; return nil
        }
        XCTAssertEqual(begins.count, 2)
        let cutSeconds = Double(begins[1].streamOffset) / 176_400
        XCTAssertGreaterThan(cutSeconds, 2.8, "the cut is inside the silence")
        XCTAssertLessThan(cutSeconds, 3.1)
        let written = actions.reduce(0) {
            if case let .write(_, bytes, _) = $1 { return $0 + bytes.count }; return $0
        }
        XCTAssertEqual(written, audio.count / 1764 * 1764, "no audio is lost or doubled without padding")
    }

    /// MP3 frames carry no loudness: it comes from the decoded audio beside the stream, which arrives later.
    func testSilenceSearchOnMP3UsesTheDecodedAudioAndWaitsForIt() {
        let loudness = LoudnessTimeline()
        var splitter = TrackSplitter(aligner: CutAligner(window: 2_000_000_000, pre: 0, post: 0))
        splitter.loudness = loudness
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 7, count: 413)  // 1152 samples, 26.12 ms
        let mp3 = "audio/mpeg, mpegversion=(int)1, layer=(int)3"
        func frames(_ count: Int, _ first: Int) -> TrackSplitter.Buffer {
            TrackSplitter.Buffer(
                bytes: Array([[UInt8]](repeating: frame, count: count).joined()), caps: mp3,
                newConnection: first == 0, offset: UInt64(first * 417), connection: 1)
        }
        // The decoded audio: tone, a pause from 3.0 to 3.3 s, tone.
        let format = PCMFormat(rate: 44100, channels: 2)
        let decoded = pcm(seconds: 3, amplitude: 0.5) + pcm(seconds: 0.3, amplitude: 0) + pcm(seconds: 4, amplitude: 0.5)
        var actions = splitter.receive(frames(96, 0))  // 2.5 s of stream
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))  // the title changes at 2.5 s
        actions += splitter.receive(frames(96, 96))  // 5.0 s: window passed, but nothing decoded yet
        XCTAssertEqual(
            actions.filter {
                if case .begin = $0 { return true }; return false
            }.count, 1, "waits for the decoded audio")
        loudness.add(decoded, format: format, pts: 0, connection: 1)
        actions += splitter.receive(frames(10, 192))
        actions += splitter.finish()
        let begins = actions.compactMap {
            if case let .begin(segment) = $0 { return segment }; return nil
        }
        XCTAssertEqual(begins.count, 2)
        let cut = Double(begins[1].streamOffset / 417) * 1152 / 44100
        XCTAssertGreaterThanOrEqual(cut, 3.0, "in the pause, not at the title (2.5 s)")
        XCTAssertLessThanOrEqual(cut, 3.3)
        let written = actions.reduce(0) {
            if case let .write(_, bytes, _) = $1 { return $0 + bytes.count }; return $0
        }
        XCTAssertEqual(written, 202 * 417)
    }

    func testLoudnessTimelineAnswersOnlyForWhatItKnows() {
        let loudness = LoudnessTimeline()
        loudness.add(pcm(seconds: 1, amplitude: 0) + pcm(seconds: 1, amplitude: 1), format: PCMFormat(rate: 44100, channels: 2), pts: 0, connection: 3)
        XCTAssertEqual(loudness.covered(connection: 3), 2_000_000_000)
        XCTAssertEqual(loudness.level(connection: 3, from: 0, to: 900_000_000), 0)
        XCTAssertGreaterThan(loudness.level(connection: 3, from: 1_100_000_000, to: 1_900_000_000) ?? 0, 0.4)
        XCTAssertNil(loudness.level(connection: 3, from: 1_500_000_000, to: 2_500_000_000), "not decoded yet")
        XCTAssertNil(loudness.level(connection: 2, from: 0, to: 100), "another connection's time axis")
    }

    func testPaddingOverlapsNeighbouringFilesOnMP3Frames() {
        var splitter = TrackSplitter(aligner: CutAligner(window: 0, pre: 1_000_000_000, post: 500_000_000))
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 7, count: 413)  // 26.12 ms
        let mp3 = "audio/mpeg, mpegversion=(int)1, layer=(int)3"
        func frames(_ count: Int, _ offset: Int, first: Bool = false) -> TrackSplitter.Buffer {
            TrackSplitter.Buffer(
                bytes: Array([[UInt8]](repeating: frame, count: count).joined()), caps: mp3, newConnection: first,
                offset: UInt64(offset * 417), connection: 1)
        }
        var actions = splitter.receive(frames(200, 0, first: true))  // 5.2 s
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))
        actions += splitter.receive(frames(200, 200))
        actions += splitter.finish()
        var perSegment: [Int: Int] = [:]
        for action in actions { if case let .write(segment, bytes, _) = action { perSegment[segment, default: 0] += bytes.count / 417 } }
        // One: 200 frames + 0.5 s (20 frames); Two: 1 s before (39 frames) + the remaining 200.
        XCTAssertEqual(perSegment[1], 200 + 20)
        XCTAssertEqual(perSegment[2], 39 + 200)
        let begins = actions.compactMap {
            if case let .begin(segment) = $0 { return segment }; return nil
        }
        XCTAssertEqual(begins.last?.streamOffset, 200 * 417, "the index keeps the cut itself, not the padded start")
        XCTAssertEqual(ends(actions).map(\.1), [false, false], "the first and last tracks are partial")
    }

    func testCueSheetListsWhereEachTrackBeginsInFramesOfA75th() {
        let sheet = CueSheet(
            fileName: "Oton FM/session.mp3", station: "Oton \"FM\"",
            tracks: [
                .init(title: "One", performer: "A", nanoseconds: 0),
                .init(title: "Two\nlines", performer: nil, nanoseconds: 61_500_000_000),
                .init(title: "Same frame", performer: nil, nanoseconds: 61_501_000_000),
            ])
        XCTAssertEqual(
            sheet.text,
            """
            TITLE "Oton ’FM’"
            FILE "Oton FM/session.mp3" MP3
              TRACK 01 AUDIO
                TITLE "One"
                PERFORMER "A"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                TITLE "Two lines"
                INDEX 01 01:01:37

            """)
    }

    func testNoSplitMarksTitlesForTheCueSheetInsteadOfCutting() {
        var splitter = TrackSplitter(split: false)
        var actions = splitter.receive(buffer(pcm(seconds: 1, amplitude: 0.3), offset: 0, first: true))
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))
        actions += splitter.receive(buffer(pcm(seconds: 1, amplitude: 0.3), offset: 176_400))
        actions += splitter.finish()
        XCTAssertEqual(ends(actions).count, 1)
        XCTAssertEqual(
            actions.compactMap {
                if case let .mark(_, metadata, ns) = $0 { return "\(metadata.title ?? "") \(ns)" }; return nil
            },
            ["Two 1000000000"])
    }

    private func ends(_ actions: [TrackSplitter.Action]) -> [(String?, Bool)] {
        actions.compactMap {
            if case let .end(segment, complete) = $0 { return (segment.metadata?.title, complete) }; return nil
        }
    }
}
