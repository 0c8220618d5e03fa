import OtonHost
import XCTest

/// The ring's bookkeeping (docs/timeshift.md) on made-up times: chunks, bounds, lookups, notes.
final class TimeshiftIndexTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    /// 16,000 bytes a second (128 kbit/s) for `seconds`, in pieces of 4,000 every quarter second.
    private func fill(_ index: inout TimeshiftIndex, seconds: Int, from start: Int64 = 0) -> [Int] {
        var dropped: [Int] = []
        for quarter in 0..<(seconds * 4) {
            let now = start + Int64(quarter) * second / 4
            _ = index.append(4000, at: now)
            dropped += index.prune(now: now)
        }
        return dropped
    }

    /// Tags at one offset are one mark with all they say (an Ogg song's empty title right after the
    /// headers' codec hid the codec: a titleless Ogg station was never cast, issue 54), whichever way
    /// they arrive; gaps of connections that received nothing are one (issue 54 §1).
    func testTagsAtOneOffsetAreJoinedAndEmptyConnectionsMakeOneGap() {
        var index = TimeshiftIndex(chunkBytes: 10_000, maxBytes: 1_000_000, maxAgeNanoseconds: 3600 * second)
        index.note(.tags(TagSet(station: "Quiet Ogg", codec: "Vorbis")))
        index.note(.tags(TagSet(title: "")))
        XCTAssertEqual(index.tags(at: 0), TagSet(title: "", station: "Quiet Ogg", codec: "Vorbis"))
        _ = index.append(500, at: 0)
        index.note(.tags(TagSet(title: "Song")))
        index.note(.tags(TagSet(station: "Name", codec: "MP3")), at: 500)
        XCTAssertEqual(index.tags(at: 500), TagSet(title: "Song", station: "Name", codec: "MP3"), "the title noted first keeps its words")
        XCTAssertEqual(index.marks(in: 0..<1000).count, 2)
        index.note(.gap)
        index.note(.gap)
        XCTAssertEqual(index.marks(in: 0..<1000).filter { $0.note == .gap }.count, 1)
    }

    func testBytesAreSplitAcrossChunksAndFoundAgain() {
        var index = TimeshiftIndex(chunkBytes: 10_000, maxBytes: 1_000_000, maxAgeNanoseconds: 3600 * second)
        let pieces = index.append(25_000, at: 0)
        XCTAssertEqual(pieces.map(\.length), [10_000, 10_000, 5_000])
        XCTAssertEqual(pieces.map(\.chunk), [0, 1, 2])
        XCTAssertEqual(index.head, 25_000)
        XCTAssertEqual(index.locate(12_345)?.chunk.number, 1)
        XCTAssertEqual(index.locate(12_345)?.offsetInChunk, 2_345)
        XCTAssertNil(index.locate(25_000), "the head is not held yet")
    }

    func testTheTimeBoundDropsWholeOldChunks() {
        var index = TimeshiftIndex(chunkBytes: 16_000, maxBytes: 10_000_000, maxAgeNanoseconds: 20 * second)
        let dropped = fill(&index, seconds: 60)
        XCTAssertFalse(dropped.isEmpty)
        let held = index.heldBytes
        XCTAssertLessThanOrEqual(held, 21 * 16_000 + 16_000, "20 s and the chunk being written")
        XCTAssertGreaterThanOrEqual(held, 20 * 16_000)
        XCTAssertEqual(index.start, UInt64(dropped.count) * 16_000)
    }

    func testTheSizeBoundHoldsWhateverTheRate() {
        var index = TimeshiftIndex(chunkBytes: 16_000, maxBytes: 100_000, maxAgeNanoseconds: 3600 * second)
        _ = fill(&index, seconds: 60)
        XCTAssertLessThanOrEqual(index.heldBytes, 100_000)
    }

    func testTimesAndOffsetsMapBothWays() {
        var index = TimeshiftIndex(chunkBytes: 16_000, maxBytes: 10_000_000, maxAgeNanoseconds: 3600 * second)
        _ = fill(&index, seconds: 10, from: 100 * second)
        XCTAssertEqual(index.time(at: 16_000), 101 * second)
        XCTAssertEqual(index.offset(at: 105 * second), 80_000)
        XCTAssertEqual(index.offset(at: 0), 0, "before the start: the start")
        XCTAssertEqual(index.offset(at: 500 * second), index.head, "after the head: the head")
    }

    func testTheTitleHeardAtAnOffsetAndTheNotesInARange() {
        var index = TimeshiftIndex(chunkBytes: 16_000, maxBytes: 10_000_000, maxAgeNanoseconds: 3600 * second)
        index.note(.tags(TagSet(title: "One")))
        _ = index.append(50_000, at: 0)
        index.note(.gap)
        index.note(.tags(TagSet(title: "Two")))
        _ = index.append(50_000, at: second)
        XCTAssertEqual(index.tags(at: 49_999)?.title, "One")
        XCTAssertEqual(index.tags(at: 50_000)?.title, "Two")
        XCTAssertEqual(index.marks(in: 1..<60_000).map(\.note), [.gap, .tags(TagSet(title: "Two"))])
    }

    func testPruningKeepsTheTitleStillHeardAtTheStart() {
        var index = TimeshiftIndex(chunkBytes: 16_000, maxBytes: 10_000_000, maxAgeNanoseconds: 10 * second)
        index.note(.tags(TagSet(title: "Long Song")))
        _ = fill(&index, seconds: 60)
        XCTAssertGreaterThan(index.start, 0)
        XCTAssertEqual(index.tags(at: index.start)?.title, "Long Song", "the song that began before the ring's start is still named")
        XCTAssertEqual(index.marks.count, 1)
    }

    func testSettingsBoundTheDiskBySizeAsWellAsTime() {
        let half = TimeshiftSettings(seconds: 1800)
        XCTAssertEqual(half.maxBytes, 72_000_000, "30 min at 320 kbit/s")
        XCTAssertEqual(TimeshiftSettings(text: "2h")?.seconds, 7200)
        XCTAssertEqual(TimeshiftSettings(text: "0")?.isOn, false)
        XCTAssertNil(TimeshiftSettings(text: "45"), "a bare number says no unit")
        XCTAssertNil(TimeshiftSettings(text: "25h"), "at most a day")
    }
}
