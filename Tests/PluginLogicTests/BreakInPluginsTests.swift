import FileSinkLogic
import Foundation
import HistoryLogic
import SleepTimerLogic
import XCTest

/// How the bundled plugins' logic treats a break (the track event field `break` = "1"): it ends
/// the song, it is never a play or a scrobble, it is a file of its own, and it ends "after this track".
final class BreakInPluginsTests: XCTestCase {
    private func fields(_ sequence: UInt64, _ title: String?, isBreak: Bool = false) -> [String: String] {
        var fields = ["sequence": String(sequence), "station": "Radio X"]
        if let title { fields["title"] = title; fields["artist"] = "A"; fields["raw_title"] = "A - \(title)" }
        if isBreak { fields["break"] = "1" }
        return fields
    }

    // MARK: History

    func testABreakEndsTheSongAndIsNeverAPlay() {
        var tracker = ListeningTracker()
        let second: Int64 = 1_000_000_000
        _ = tracker.track(fields: fields(1, "One"), monoNanoseconds: 0, wallMicroseconds: 0)
        let atBreak = tracker.track(fields: fields(2, nil, isBreak: true), monoNanoseconds: 200 * second, wallMicroseconds: 200_000_000)
        guard case let .ended(end) = atBreak.first, atBreak.count == 1 else { return XCTFail("the break ends One: \(atBreak)") }
        XCTAssertEqual(end.start.title, "One")
        XCTAssertEqual(end.secondsListened, 200, accuracy: 0.001, "the song's row ends where the break begins")
        XCTAssertTrue(end.endedByTitleChange)
        XCTAssertNil(tracker.current, "no play runs during the break")

        // Even a break that carries a text (a station that sent its name) is not a play.
        var withText = fields(3, "Radio X", isBreak: true)
        withText["break"] = "1"
        XCTAssertEqual(tracker.track(fields: withText, monoNanoseconds: 230 * second, wallMicroseconds: 0), [])
        XCTAssertEqual(
            tracker.state("stopped", monoNanoseconds: 260 * second, wallMicroseconds: 0), [],
            "stopping during the break ends nothing: there is nothing to scrobble")

        let next = tracker.track(fields: fields(4, "One"), monoNanoseconds: 300 * second, wallMicroseconds: 0)
        guard case let .started(start) = next.first else { return XCTFail("the song after the break is a new play: \(next)") }
        XCTAssertEqual(start.sequence, 4)
    }

    // MARK: FileSink

    func testABreakEndsTheFileAndIsRecordedAsItsOwnFile() {
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 5, count: 413)  // MPEG-1 Layer 3, 128 kbit/s, 44.1 kHz: 417 bytes
        func buffer(_ count: Int, offset: Int, new: Bool = false) -> TrackSplitter.Buffer {
            TrackSplitter.Buffer(
                bytes: Array([[UInt8]](repeating: frame, count: count).joined()), caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3",
                newConnection: new, offset: UInt64(offset * 417), connection: 1)
        }
        var splitter = TrackSplitter()
        var actions = splitter.receive(buffer(3, offset: 0, new: true))
        actions += splitter.track(TrackMetadata(fields: fields(1, "One"))!)
        actions += splitter.receive(buffer(2, offset: 3))
        let breakMetadata = TrackMetadata(fields: fields(2, nil, isBreak: true))!
        XCTAssertEqual(breakMetadata.title, "Break")
        XCTAssertEqual(breakMetadata.artist, "Radio X", "the station, not \"Unknown artist\"")
        actions += splitter.track(breakMetadata)
        actions += splitter.receive(buffer(4, offset: 5))
        actions += splitter.track(TrackMetadata(fields: fields(3, "Two"))!)
        actions += splitter.receive(buffer(2, offset: 9))
        actions += splitter.finish()
        let ended = actions.compactMap {
            if case let .end(segment, complete) = $0 { return (segment.metadata?.title, complete, segment.streamOffset) }; return nil
        }
        XCTAssertEqual(ended.map(\.0), ["One", "Break", "Two"], "the break ends One's file and has its own")
        XCTAssertEqual(ended.map(\.1), [false, true, false], "the break began and ended at a title change")
        XCTAssertEqual(ended.map(\.2), [0, 5 * 417, 9 * 417], "cuts at the first frame after each event")
    }

    // MARK: SleepTimer

    func testAfterTrackFiresWhenTheSequenceMovesOnAndABreakCounts() {
        let fired: [SleepTimerModel.Effect] = [.arm(nanoseconds: nil), .announceFired, .fadeOut(milliseconds: 10_000)]
        var model = SleepTimerModel()
        XCTAssertEqual(model.trackChanged(fields: fields(1, "One")), [])
        _ = model.setAfterTrack()
        XCTAssertEqual(model.trackChanged(fields: fields(1, "One")), [], "the same sequence (artwork, station added) is the same track")
        XCTAssertEqual(model.trackChanged(fields: fields(2, nil, isBreak: true)), fired, "the song ended: a break began")
    }

    func testAfterTrackSetDuringABreakFinishesTheNextSong() {
        let fired: [SleepTimerModel.Effect] = [.arm(nanoseconds: nil), .announceFired, .fadeOut(milliseconds: 10_000)]
        var model = SleepTimerModel()
        _ = model.trackChanged(fields: fields(1, "One"))
        _ = model.trackChanged(fields: fields(2, nil, isBreak: true))
        _ = model.setAfterTrack()
        XCTAssertEqual(model.trackChanged(fields: fields(2, nil, isBreak: true)), [], "the break again")
        XCTAssertEqual(model.trackChanged(fields: fields(3, "One")), [], "the song after the break is the one to finish, even with the same title")
        XCTAssertEqual(model.trackChanged(fields: fields(3, "One")), [])
        XCTAssertEqual(model.trackChanged(fields: fields(4, "Two")), fired)
    }

    func testAfterTrackUsesTheSequenceNotTheTitle() {
        var model = SleepTimerModel()
        _ = model.trackChanged(fields: fields(1, "One"))
        _ = model.setAfterTrack()
        XCTAssertEqual(
            model.trackChanged(fields: fields(2, "One")).contains(.announceFired), true,
            "the same title as a new sequence (after a break, or played twice) is a new track")
    }
}
