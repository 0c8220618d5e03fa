import FileSinkLogic
import Foundation
import OtonJSON
import XCTest

/// Archive mode's cutting: segments at the frame nearest each wall-clock boundary, every unit
/// exactly once, gaps named in place of cuts, Ogg segments with their headers.
final class ArchiveSplitterTests: XCTestCase {
    private let second: Int64 = 1_000_000_000
    /// 2026-11-27T12:00:00Z.
    private let noon: Int64 = 1_795_780_800 * 1_000_000_000
    private let mp3Caps = "audio/mpeg, mpegversion=(int)1, layer=(int)3"
    /// One MP3 frame (1152 samples at 44.1 kHz).
    private let frameNanoseconds: Int64 = 1152 * 1_000_000_000 / 44100

    private func mp3Frame(_ index: Int) -> [UInt8] {
        [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 413)
    }

    /// A live MP3 stream as the light engine reads it: a burst of `burst` frames at the first read,
    /// then what the server sent in real time, read every `tick`.
    private struct Feed {
        var reader = StreamUnitReader()
        var offset: UInt64 = 0
        var connection: UInt64 = 1
        var frameIndex = 0
        var received: [UInt8] = []

        mutating func buffer(frames: Int, caps: String, newConnection: Bool = false, make: (Int) -> [UInt8]) -> StreamUnitReader.Reading {
            var bytes: [UInt8] = []
            for _ in 0..<frames {
                bytes += make(frameIndex)
                frameIndex += 1
            }
            received += bytes
            let buffer = TrackSplitter.Buffer(bytes: bytes, caps: caps, newConnection: newConnection, offset: offset, connection: connection)
            offset += UInt64(bytes.count)
            return reader.read(buffer)
        }
    }

    private struct Segments {
        var files: [[UInt8]] = []
        var begun: [ArchiveSplitter.Segment] = []
        var ended: [(ArchiveSplitter.Segment, ArchiveSplitter.EndReason)] = []
        var gaps: [ArchiveSplitter.Gap] = []
        var titles: [(String?, Int64)] = []

        mutating func apply(_ actions: [ArchiveSplitter.Action]) {
            for action in actions {
                switch action {
                case let .begin(segment): begun.append(segment); files.append([])
                case let .write(bytes): files[files.count - 1] += bytes
                case let .gap(gap, _): gaps.append(gap)
                case let .title(metadata, _, offset): titles.append((metadata.title, offset))
                case let .end(segment, reason): ended.append((segment, reason))
                }
            }
        }
    }

    func testSegmentsAreCutAtTheFrameNearestEachBoundaryAndJoinToEveryByte() throws {
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 10)))
        var feed = Feed()
        var segments = Segments()
        // Connect at 11:59:47.3 with a 4 s burst, then half a second of audio per 0.5 s tick, to 12:00:22.
        var arrival = noon - 12_700_000_000
        segments.apply(splitter.receive(feed.buffer(frames: 153, caps: mp3Caps, make: mp3Frame), arrival: arrival))
        var sent: Int64 = 153 * frameNanoseconds
        while arrival < noon + 22 * second {
            arrival += 500_000_000
            // The server sends in real time from 4 s of backlog: whole frames up to the wall clock.
            let due = Int((arrival - (noon - 12_700_000_000) + 4 * second - sent) / frameNanoseconds)
            segments.apply(splitter.receive(feed.buffer(frames: due, caps: mp3Caps, make: mp3Frame), arrival: arrival))
            sent += Int64(due) * frameNanoseconds
        }
        segments.apply(splitter.finish())
        XCTAssertEqual(segments.files.reduce([], +), feed.received, "the segments join to exactly the bytes received")
        XCTAssertEqual(segments.begun.count, 5, "11:59:43 to 11:59:50, then 11:59:50, 12:00:00, 12:00:10 and 12:00:20 on")
        XCTAssertEqual(segments.ended.map(\.1), [.boundary, .boundary, .boundary, .boundary, .stopped])
        let first = segments.begun[0]
        XCTAssertEqual(Double(first.start - (noon - 16_700_000_000)) / 1e9, 0, accuracy: 0.03, "the burst is dated before the connection")
        for (index, boundary) in [noon - 10 * second, noon, noon + 10 * second, noon + 20 * second].enumerated() {
            let segment = segments.begun[index + 1]
            XCTAssertLessThanOrEqual(abs(segment.start - boundary), frameNanoseconds / 2 + 1, "cut at the frame nearest \(index)")
            XCTAssertTrue(segment.fromBoundary)
            XCTAssertEqual(segments.ended[index].0.periodEnd, boundary)
            XCTAssertEqual(segments.ended[index].0.end, segment.start, "each segment ends where the next begins")
        }
        XCTAssertFalse(first.fromBoundary)
        let middle = segments.ended[2].0
        XCTAssertTrue((382...383).contains(middle.frames), "10 s of 26.1 ms frames: 382.8; \(middle.frames)")
        XCTAssertEqual(Double(middle.audioNanoseconds) / 1e9, 10, accuracy: 0.027)
        XCTAssertEqual(ArchiveLedger.bitrate(middle), 128)
        XCTAssertTrue(segments.gaps.isEmpty)
    }

    func testAReconnectIsAGapInsideTheSegmentAndTheErrorsNameIt() throws {
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 60)))
        var feed = Feed()
        var segments = Segments()
        var arrival = noon + 5 * second
        for _ in 0..<20 {
            segments.apply(splitter.receive(feed.buffer(frames: 19, caps: mp3Caps, make: mp3Frame), arrival: arrival))
            arrival += 19 * frameNanoseconds
        }
        let endOfAudio = noon + 5 * second + 19 * 19 * frameNanoseconds
        splitter.playerError(kind: "stream-unavailable")
        splitter.playerError(kind: "not-found")
        // Back 7 s later on a new connection; half of a frame was cut off by the server going down.
        feed.connection = 2
        feed.offset = 0
        segments.apply(splitter.receive(feed.buffer(frames: 10, caps: mp3Caps, newConnection: true, make: mp3Frame), arrival: endOfAudio + 7 * second))
        segments.apply(splitter.finish())
        XCTAssertEqual(segments.begun.count, 1, "a reconnect does not cut")
        let gap = try XCTUnwrap(segments.gaps.first)
        XCTAssertEqual(gap.reason, .sourceDown, "two failed attempts: the source was down")
        XCTAssertEqual(Double(gap.missingNanoseconds) / 1e9, 7 - Double(10 * frameNanoseconds) / 1e9, accuracy: 0.03)
        XCTAssertEqual(Double(gap.at - endOfAudio) / 1e9, 0, accuracy: 0.03)
        XCTAssertEqual(segments.files[0], feed.received)

        var once = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 60)))
        var second = Feed()
        _ = once.receive(second.buffer(frames: 19, caps: mp3Caps, make: mp3Frame), arrival: noon)
        once.playerError(kind: "stream-unavailable")
        second.connection = 2
        let actions = once.receive(second.buffer(frames: 19, caps: mp3Caps, newConnection: true, make: mp3Frame), arrival: noon + 2 * self.second)
        XCTAssertTrue(actions.contains { if case let .gap(gap, _) = $0 { gap.reason == .reconnect } else { false } }, "one error: a reconnect")
    }

    func testAnOutageAcrossABoundaryIsInBothSegmentsLedgers() throws {
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 10)))
        var feed = Feed()
        var segments = Segments()
        var arrival = noon + 1 * second
        for _ in 0..<10 {  // 11 … 16 s
            segments.apply(splitter.receive(feed.buffer(frames: 19, caps: mp3Caps, make: mp3Frame), arrival: arrival))
            arrival += 19 * frameNanoseconds
        }
        let stopped = try XCTUnwrap(splitter.currentSegment?.end)
        splitter.playerError(kind: "stream-unavailable")
        splitter.playerError(kind: "not-found")
        feed.connection = 2
        // Back at 12:00:34: the periods 12:00:10 and 12:00:20 lost their ends and wholes.
        segments.apply(splitter.receive(feed.buffer(frames: 19, caps: mp3Caps, newConnection: true, make: mp3Frame), arrival: noon + 34 * second))
        segments.apply(splitter.finish())
        XCTAssertEqual(segments.begun.count, 2)
        XCTAssertEqual(segments.gaps.count, 2)
        XCTAssertEqual(segments.gaps[0].at, stopped)
        XCTAssertEqual(segments.gaps[0].missingNanoseconds, noon + 10 * second - stopped, "to the boundary")
        XCTAssertEqual(segments.gaps[1].at, noon + 30 * second, "from the start of the new segment's period")
        XCTAssertEqual(Double(segments.gaps[1].missingNanoseconds) / 1e9, 34 - 30 - Double(19 * frameNanoseconds) / 1e9, accuracy: 0.03)
        XCTAssertEqual(segments.gaps.map(\.reason), [.sourceDown, .sourceDown])
    }

    func testAServerThatStallsLeavesAGapOfTheSecondsItDidNotSend() throws {
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 3600)))
        var feed = Feed()
        var segments = Segments()
        var arrival = noon
        for _ in 0..<40 {  // 20 s in real time
            segments.apply(splitter.receive(feed.buffer(frames: 19, caps: mp3Caps, make: mp3Frame), arrival: arrival))
            arrival += 19 * frameNanoseconds
        }
        arrival += 4 * second  // nothing for 4 s, then the live audio of now: 4 s are missing
        for _ in 0..<10 {
            segments.apply(splitter.receive(feed.buffer(frames: 19, caps: mp3Caps, make: mp3Frame), arrival: arrival))
            arrival += 19 * frameNanoseconds
        }
        segments.apply(splitter.finish())
        let gap = try XCTUnwrap(segments.gaps.first)
        XCTAssertEqual(gap.reason, .stall)
        XCTAssertEqual(Double(gap.missingNanoseconds) / 1e9, 4, accuracy: 0.05)
        XCTAssertEqual(segments.gaps.count, 1)
        XCTAssertEqual(segments.files.reduce([], +), feed.received)
    }

    func testABacklogDeliveredLateIsNoGap() throws {
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 3600)))
        var feed = Feed()
        var arrival = noon
        var actions: [ArchiveSplitter.Action] = []
        for round in 0..<40 {
            // A loaded machine read nothing for 3 s, then everything that had come meanwhile.
            let frames = round == 20 ? 19 * 7 : 19
            if round == 20 { arrival += 6 * 19 * frameNanoseconds }
            actions += splitter.receive(feed.buffer(frames: frames, caps: mp3Caps, make: mp3Frame), arrival: arrival)
            arrival += 19 * frameNanoseconds
        }
        XCTAssertFalse(actions.contains { if case .gap = $0 { true } else { false } })
    }

    func testAnOggSegmentStartsWithItsStreamsHeaderPages() throws {
        func le(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) } }
        func page(_ sequence: UInt32, granule: Int64, bos: Bool = false, body: [UInt8]) -> [UInt8] {
            let lacing: [UInt8] = Array(repeating: 255, count: body.count / 255) + [UInt8(body.count % 255)]
            return Array("OggS".utf8) + [0, bos ? 2 : 0] + le(UInt64(bitPattern: granule), 8) + le(5, 4) + le(UInt64(sequence), 4)
                + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing + body
        }
        let identification = [1] + Array("vorbis".utf8) + [0, 0, 0, 0, 2] + le(44100, 4) + [UInt8](repeating: 0, count: 14)
        let headers = page(0, granule: 0, bos: true, body: identification) + page(1, granule: 0, body: [3] + Array("vorbis".utf8))
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 10)))
        var feed = Feed()
        var segments = Segments()
        var granule: Int64 = 0
        segments.apply(splitter.receive(feed.buffer(frames: 1, caps: "application/ogg", make: { _ in headers }), arrival: noon - 5 * second))
        var arrival = noon - 5 * second
        for _ in 0..<20 {  // a page of half a second each, 10 s
            granule += 22050
            let audio = page(UInt32(2 + granule / 22050), granule: granule, body: [UInt8](repeating: 7, count: 300))
            segments.apply(splitter.receive(feed.buffer(frames: 1, caps: "application/ogg", make: { _ in audio }), arrival: arrival))
            arrival += 500_000_000
        }
        segments.apply(splitter.finish())
        XCTAssertGreaterThanOrEqual(segments.files.count, 2)
        let second = try XCTUnwrap(segments.files.dropFirst().first)
        XCTAssertEqual(Array(second.prefix(headers.count)), headers, "the cut segment opens with the stream's header pages")
        XCTAssertEqual(segments.ended[1].0.headerBytes, UInt64(headers.count))
        XCTAssertEqual(
            segments.files[0] + second.dropFirst(headers.count) + segments.files.dropFirst(2).reduce([], +), feed.received,
            "less the repeated headers, the segments join to the bytes received")
    }

    func testAChangeOfFormatStartsANewSegmentAndTitlesAreOffsets() throws {
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 3600)))
        var feed = Feed()
        var segments = Segments()
        segments.apply(splitter.receive(feed.buffer(frames: 40, caps: mp3Caps, make: mp3Frame), arrival: noon + 600 * second))
        segments.apply(splitter.track(TrackMetadata(sequence: 2, title: "Song \"two\"\nlines", artist: "A")))
        segments.apply(splitter.receive(feed.buffer(frames: 40, caps: mp3Caps, make: mp3Frame), arrival: noon + 601 * second))
        feed.connection = 2
        let adts: (Int) -> [UInt8] = { _ in [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC] + [UInt8](repeating: 1, count: 9) }
        segments.apply(
            splitter.receive(feed.buffer(frames: 30, caps: "audio/mpeg, mpegversion=(int)4", newConnection: true, make: adts), arrival: noon + 602 * second))
        segments.apply(splitter.finish())
        XCTAssertEqual(segments.begun.map(\.container), [.mpegAudio, .adts])
        XCTAssertEqual(segments.ended.map(\.1), [.formatChanged, .stopped])
        XCTAssertEqual(segments.titles.first?.0, "Song \"two\"\nlines")
        XCTAssertEqual(Double(segments.titles.first?.1 ?? 0) / 1e9, Double(40 * frameNanoseconds) / 1e9, accuracy: 0.001)
        XCTAssertEqual(segments.titles.last?.1, 0, "the title in effect opens the next segment")
        let line = ArchiveLedger.titleLine(TrackMetadata(sequence: 2, title: "Song \"two\"\nlines", artist: "A"), at: noon, offsetNanoseconds: 1_044_897_959)
        let parsed = try JSONValue.parse(Data(line.utf8))
        XCTAssertEqual(parsed["title"]?.stringValue, "Song \"two\"\nlines")
        XCTAssertEqual(parsed["at"]?.stringValue, "2026-11-27T12:00:00.000Z")
        XCTAssertEqual(parsed["offset"]?.numberValue, 1.045)
    }

    func testADurationLimitStopsAtTheFrame() throws {
        var splitter = ArchiveSplitter(period: try XCTUnwrap(ArchivePeriod(seconds: 10)))
        splitter.audioLimit = 3 * second
        var feed = Feed()
        var segments = Segments()
        var arrival = noon + 5 * second
        for _ in 0..<10 {  // 5 s in buffers of half a second, across 12:00:10
            segments.apply(splitter.receive(feed.buffer(frames: 19, caps: mp3Caps, make: mp3Frame), arrival: arrival))
            arrival += 19 * frameNanoseconds
        }
        XCTAssertTrue(splitter.reachedLimit)
        XCTAssertEqual(segments.ended.last?.1, .stopped)
        XCTAssertEqual(segments.ended.count, segments.begun.count, "the last segment has ended")
        let frames = segments.ended.reduce(0) { $0 + $1.0.frames }
        XCTAssertEqual(frames, Int((3 * second + frameNanoseconds - 1) / frameNanoseconds), "3 s, to the frame")
        XCTAssertEqual(segments.files.reduce([], +), Array(feed.received.prefix(frames * 417)))
        XCTAssertTrue(splitter.finish().isEmpty, "nothing left to end")
    }

    func testRetentionRemovesTheOldestFirstByAgeAndBySize() {
        let hour: Int64 = 3600 * second
        let entries = (0..<5).map { index in
            ArchiveRetention.Entry(path: "s/\(index).mp3", start: noon + Int64(index) * hour, end: noon + Int64(index + 1) * hour, bytes: 100)
        }
        let now = noon + 5 * hour
        XCTAssertEqual(
            ArchiveRetention(maxAgeNanoseconds: 5 * hour / 2).expired(entries.shuffled(), now: now, writingBytes: 50).map(\.path),
            ["s/0.mp3", "s/1.mp3"], "ended more than 2.5 h ago")
        XCTAssertEqual(
            ArchiveRetention(maxBytes: 350).expired(entries, now: now, writingBytes: 50).map(\.path),
            ["s/0.mp3", "s/1.mp3"], "300 kept + 50 being written ≤ 350")
        XCTAssertEqual(
            ArchiveRetention(maxAgeNanoseconds: 4 * hour, maxBytes: 250).expired(entries, now: now, writingBytes: 0).map(\.path),
            ["s/0.mp3", "s/1.mp3", "s/2.mp3"])
        XCTAssertEqual(
            ArchiveRetention(maxBytes: 10).expired(entries, now: now, writingBytes: 1000).count, 5,
            "everything finished may go, the segment being written is never among them")
        XCTAssertTrue(ArchiveRetention().expired(entries, now: now, writingBytes: 0).isEmpty)
        var whenFull = ArchiveRetention()
        XCTAssertNil(whenFull.oldestToFreeSpace(entries), "by default a full disk stops the recording")
        whenFull.removeOldestWhenFull = true
        XCTAssertEqual(whenFull.oldestToFreeSpace(entries.shuffled())?.path, "s/0.mp3", "--when-full oldest: the oldest goes")
        XCTAssertNil(whenFull.oldestToFreeSpace([]), "with nothing finished to remove, recording stops")
    }
}
