import FileSinkLogic
import Foundation
import HistoryLogic
import NowPlayingLogic
import OtonJSON
import OtonPluginKit
import XCTest

/// Issue 52: where each title came from (`title_source`) travels with it into MPRIS, history,
/// scrobbling and the recorder's tags, index and ledger.
final class TitleSourceLogicTests: XCTestCase {
    private func fields(_ sequence: UInt64, _ title: String?, source: String?, isBreak: Bool = false) -> [String: String] {
        var fields = ["sequence": String(sequence), "artist": "Artist", "station": "Oton FM", "stream_url": "http://127.0.0.1/live"]
        if let title { fields["title"] = title }
        if let source { fields["title_source"] = source }
        if isBreak {
            fields["break"] = "1"
            fields["title"] = nil
            fields["artist"] = nil
        }
        return fields
    }

    // MARK: MPRIS

    func testMprisMetadataCarriesTheTitleSourceUnderOtonsNamespaceOnlyWithATitle() throws {
        var model = NowPlayingModel()
        _ = model.applyTrack(try XCTUnwrap(TrackFields(fields: fields(1, "Song", source: "station-api"))))
        var metadata = Dictionary(uniqueKeysWithValues: model.metadata.map { ($0.key, $0.value) })
        XCTAssertEqual(metadata["oton:titleSource"], .string("station-api"))
        XCTAssertEqual(metadata["xesam:title"], .string("Song"), "the title itself stays as it is")
        XCTAssertEqual(model.applyTrack(try XCTUnwrap(TrackFields(fields: fields(1, "Song", source: "stream")))).properties, ["Metadata"])
        metadata = Dictionary(uniqueKeysWithValues: model.metadata.map { ($0.key, $0.value) })
        XCTAssertEqual(metadata["oton:titleSource"], .string("stream"), "the same song, now named by the stream")
        _ = model.applyTrack(try XCTUnwrap(TrackFields(fields: fields(2, nil, source: "recognised"))))
        metadata = Dictionary(uniqueKeysWithValues: model.metadata.map { ($0.key, $0.value) })
        XCTAssertNil(metadata["oton:titleSource"], "no title, no source")
    }

    // MARK: History and scrobbling

    func testHistoryKeepsTheSourceAndARecognisedTitleIsNeverScrobbled() throws {
        var tracker = ListeningTracker()
        let started = tracker.track(fields: fields(1, "Song", source: "station-api"), monoNanoseconds: 0, wallMicroseconds: 1_000_000)
        guard case let .started(start)? = started.last else { return XCTFail("\(started)") }
        XCTAssertEqual(start.titleSource, "station-api")
        XCTAssertNotNil(ScrobbleRule.nowPlaying(start), "the station's own API is the station's word")
        let updated = tracker.track(fields: fields(1, "Song", source: "stream"), monoNanoseconds: 1, wallMicroseconds: 1_000_001)
        XCTAssertEqual(
            updated,
            [
                .updated(
                    {
                        var s = start; s.titleSource = "stream"; return s
                    }())
            ], "the source follows the same heard track")

        var provider = start
        provider.titleSource = "provider:laut.fm"
        XCTAssertNotNil(ScrobbleRule.nowPlaying(provider), "a provider rule reads the platform the station publishes through")
        var recognised = start
        recognised.titleSource = "recognised"
        XCTAssertNil(ScrobbleRule.nowPlaying(recognised), "a guess is never scrobbled")
        XCTAssertNil(
            ScrobbleRule.listen(
                for: PlayEnd(start: recognised, endedAtMicroseconds: 600_000_000, secondsListened: 600, endedByTitleChange: true),
                minimumLiveSeconds: 30))
        var older = start
        older.titleSource = nil
        XCTAssertNotNil(ScrobbleRule.nowPlaying(older), "an older host says nothing: its titles were the stream's or the station's")
    }

    func testHistoryOutputSaysWhereEachTitleCameFrom() throws {
        func row(_ id: Int64, _ source: String?) -> PlayRow {
            PlayRow(
                id: id, station: "Oton FM", artist: "Artist", title: "Song \(id)", rawTitle: nil, startedAt: 1_700_000_000_000_000,
                endedAt: nil, secondsListened: 61, artworkPath: nil, isJingle: false, titleSource: source)
        }
        let rows = [row(1, "stream"), row(2, "station-api"), row(3, "recognised"), row(4, "provider:laut.fm"), row(5, nil)]
        let json = HistoryFormatter.format(rows, as: .json)
        let parsed = try XCTUnwrap(JSONValue.parse(Data(json.utf8)).arrayValue)
        XCTAssertEqual(parsed.map { $0["title_source"]?.stringValue }, ["stream", "station-api", "recognised", "provider:laut.fm", nil])
        XCTAssertEqual(parsed.last?["title_source"], .null, "an older row says it does not know")
        let csv = HistoryFormatter.format(rows, as: .csv).split(separator: "\n")
        XCTAssertTrue(csv[0].hasSuffix(",skipped,title_source"), String(csv[0]))
        XCTAssertTrue(csv[2].hasSuffix(",station-api"), String(csv[2]))
        let table = HistoryFormatter.format(rows, as: .table, labels: HistoryLabels(["[recognised]": "[распознано]"]))
        XCTAssertTrue(table.contains("Song 1\n"), table)
        XCTAssertTrue(table.contains("Song 2 [station's website]"), table)
        XCTAssertTrue(table.contains("Song 3 [распознано]"), table)
        XCTAssertTrue(table.contains("Song 4 [laut.fm]"), table)
    }

    // MARK: The recorder

    func testTrackMetadataTakesTheSourceAndABreakHasNone() throws {
        XCTAssertEqual(TrackMetadata(fields: fields(3, "Song", source: "station-api"))?.titleSource, "station-api")
        XCTAssertNil(TrackMetadata(fields: fields(4, nil, source: "station-api", isBreak: true))?.titleSource)
    }

    func testID3TagCarriesTheSourceAsATXXXFrame() throws {
        var tag = ID3v2Tag(title: "Song")
        tag.userTexts.append(.init(TrackTags.titleSourceKey, "station-api"))
        let bytes = tag.bytes()
        let body = [3] + Array("TITLE_SOURCE".utf8) + [0] + Array("station-api".utf8)
        let frame = Array("TXXX".utf8) + ID3v2Tag.syncsafe(body.count) + [0, 0] + body
        XCTAssertNotNil(bytes.firstRange(of: frame), "TXXX: UTF-8, the description, a terminator, the value")
        XCTAssertNil(ID3v2Tag(title: "Song").bytes().firstRange(of: Array("TXXX".utf8)), "no source, no frame")
    }

    func testFLACCommentsCarryTheSource() throws {
        // fLaC, a last STREAMINFO block of 34 zero bytes, then a frame's first bytes.
        let stream = Array("fLaC".utf8) + [0x80, 0, 0, 34] + [UInt8](repeating: 0, count: 34) + [0xFF, 0xF8, 1, 2]
        var rewriter = FLACTagRewriter(tags: TrackTags(title: "Song", titleSource: "recognised"))
        let out = rewriter.push(stream) + rewriter.finish()
        XCTAssertNotNil(out.firstRange(of: Array("TITLE_SOURCE=recognised".utf8)), "a Vorbis comment TITLE_SOURCE")
    }

    func testTheLedgerAndTheIndexSayWhereTheTitleCameFrom() throws {
        let line = ArchiveLedger.titleLine(
            TrackMetadata(sequence: 2, title: "Song", artist: "A", titleSource: "station-api"), at: 1_700_000_000_000_000, offsetNanoseconds: 0)
        XCTAssertEqual(try JSONValue.parse(Data(line.utf8))["title_source"]?.stringValue, "station-api")
        let withoutSource = ArchiveLedger.titleLine(TrackMetadata(sequence: 3, title: "Song"), at: 1_700_000_000_000_000, offsetNanoseconds: 0)
        XCTAssertNil(try JSONValue.parse(Data(withoutSource.utf8))["title_source"])

        var track = RecordingIndex.Track(
            id: 1, session: "s-1", status: .complete, file: "a.mp3", title: "Song", artist: "A", station: nil,
            sequence: 2, connection: 1, started: "2026-11-29T07:00:00Z", sessionSeconds: 0, streamOffset: 0)
        track.titleSource = "provider:laut.fm"
        let line2 = try RecordingIndex.journalLine(track)
        XCTAssertNotNil(line2.range(of: Data(#""title_source":"provider:laut.fm""#.utf8)), String(decoding: line2, as: UTF8.self))
        var index = RecordingIndex()
        XCTAssertEqual(index.apply(journal: line2), 0)
        XCTAssertEqual(index.tracks.first?.titleSource, "provider:laut.fm", "read back")
    }
}
