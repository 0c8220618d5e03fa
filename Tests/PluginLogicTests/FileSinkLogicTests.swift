import FileSinkLogic
import Foundation
import OtonStreamFraming
import XCTest

/// The file sink's pure logic: framing, cutting, names, tags, settings.
final class FileSinkLogicTests: XCTestCase {
    /// A valid MPEG-1 layer III frame at 128 kbit/s, 44.1 kHz (417 bytes, or 418 padded).
    private func mp3Frame(fill: UInt8, padded: Bool = false) -> [UInt8] {
        let header: [UInt8] = [0xFF, 0xFB, padded ? 0x92 : 0x90, 0x64]
        return header + [UInt8](repeating: fill, count: (padded ? 418 : 417) - 4)
    }

    private func oggPage(serial: UInt32, sequence: UInt32, granule: Int64, bos: Bool = false, body: [UInt8]) -> [UInt8] {
        func le(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) } }
        var lacing: [UInt8] = Array(repeating: 255, count: body.count / 255) + [UInt8(body.count % 255)]
        if body.isEmpty { lacing = [0] }
        return Array("OggS".utf8) + [0, bos ? 2 : 0] + le(UInt64(bitPattern: granule), 8) + le(UInt64(serial), 4) + le(UInt64(sequence), 4)
            + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing + body
    }

    private func vorbisID(rate: UInt32) -> [UInt8] {
        [1] + Array("vorbis".utf8) + [0, 0, 0, 0, 2] + (0..<4).map { UInt8((rate >> (8 * UInt32($0))) & 0xFF) } + [UInt8](repeating: 0, count: 14)
    }

    func testMPEGFramerFindsFramesAcrossPiecesAndSkipsGarbage() {
        var framer = MPEGAudioFramer()
        let stream = [0x00, 0xFF, 0x12] + mp3Frame(fill: 1) + mp3Frame(fill: 2, padded: true) + mp3Frame(fill: 3) + mp3Frame(fill: 4)
        var units: [StreamUnit] = []
        var index = 0
        while index < stream.count {  // pieces of 100 bytes, as a network would deliver them
            units += framer.push(Array(stream[index..<min(index + 100, stream.count)]))
            index += 100
        }
        XCTAssertEqual(units.map(\.bytes.count), [417, 418, 417, 417], "the first frame is confirmed by the next header")
        XCTAssertEqual(units.map { $0.bytes[4] }, [1, 2, 3, 4])
        XCTAssertEqual(units[0].durationNanoseconds, 1152 * 1_000_000_000 / 44100)
        XCTAssertEqual(framer.skippedBytes, 3)
        XCTAssertEqual(framer.push(Array(mp3Frame(fill: 6).prefix(200))).count, 0, "half a frame waits")
        XCTAssertEqual(framer.flush().count, 200)
    }

    func testMPEGHeaderRejectsReservedValues() {
        XCTAssertNil(MPEGFrameHeader([0xFF, 0xFB, 0xF0, 0x64, 0, 0, 0], at: 0), "bitrate index 15")
        XCTAssertNil(MPEGFrameHeader([0xFF, 0xFB, 0x9C, 0x64, 0, 0, 0], at: 0), "sample rate index 3")
        XCTAssertNil(MPEGFrameHeader([0xFF, 0xEB, 0x90, 0x64, 0, 0, 0], at: 0), "reserved version")
        XCTAssertEqual(MPEGFrameHeader(mp3Frame(fill: 0), at: 0)?.length, 417)
    }

    func testOggFramerMarksTheNewLogicalStreamAndHeaders() {
        var framer = OggPageFramer()
        let stream =
            oggPage(serial: 7, sequence: 0, granule: 0, bos: true, body: vorbisID(rate: 44100))
            + oggPage(serial: 7, sequence: 1, granule: 0, body: [3] + Array("vorbis".utf8))
            + oggPage(serial: 7, sequence: 2, granule: 44100, body: [UInt8](repeating: 9, count: 600))
            + oggPage(serial: 7, sequence: 3, granule: 88200, body: [UInt8](repeating: 9, count: 600))
            + oggPage(serial: 8, sequence: 0, granule: 0, bos: true, body: vorbisID(rate: 44100))
        let units = framer.push(stream)
        XCTAssertEqual(units.count, 5)
        XCTAssertEqual(units.map(\.beginsLogicalStream), [true, false, false, false, true])
        XCTAssertEqual(units.map(\.isCodecHeader), [true, true, false, false, true])
        XCTAssertEqual(
            units[2].durationNanoseconds + units[3].durationNanoseconds, 2_000_000_000,
            "the first page's length is settled with the second")
    }

    func testOggFramerDoesNotCountTheJumpIntoAStreamJoinedLate() {
        // Icecast sends the headers, then audio from 10 s into the logical stream.
        var framer = OggPageFramer()
        let units = framer.push(
            oggPage(serial: 7, sequence: 0, granule: 0, bos: true, body: vorbisID(rate: 44100))
                + oggPage(serial: 7, sequence: 1, granule: 0, body: [3] + Array("vorbis".utf8))
                + oggPage(serial: 7, sequence: 90, granule: 441_000, body: [UInt8](repeating: 9, count: 600))
                + oggPage(serial: 7, sequence: 91, granule: 485_100, body: [UInt8](repeating: 9, count: 600)))
        XCTAssertEqual(units.map(\.durationNanoseconds).reduce(0, +), 2_000_000_000, "two pages of a second, not 11 s")

        // The same when the first audio page ends no packet (granule -1, a long Vorbis packet spanning pages):
        // the jump is still not counted (it was, as 10 s, and `--duration` then stopped a recording early).
        var spanning = OggPageFramer()
        let spanned = spanning.push(
            oggPage(serial: 8, sequence: 0, granule: 0, bos: true, body: vorbisID(rate: 44100))
                + oggPage(serial: 8, sequence: 1, granule: 0, body: [3] + Array("vorbis".utf8))
                + oggPage(serial: 8, sequence: 90, granule: -1, body: [UInt8](repeating: 9, count: 600))
                + oggPage(serial: 8, sequence: 91, granule: 441_000, body: [UInt8](repeating: 9, count: 600))
                + oggPage(serial: 8, sequence: 92, granule: 485_100, body: [UInt8](repeating: 9, count: 600)))
        XCTAssertEqual(spanned.map(\.durationNanoseconds).reduce(0, +), 2_000_000_000, "not 11 s")
    }

    private func mp3Buffer(_ frames: [[UInt8]], offset: UInt64, flags: (new: Bool, discont: Bool) = (false, false), connection: UInt64 = 1)
        -> TrackSplitter.Buffer
    {
        TrackSplitter.Buffer(
            bytes: frames.flatMap { $0 }, caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3",
            newConnection: flags.new, discontinuity: flags.discont, offset: offset, connection: connection)
    }

    private func ends(_ actions: [TrackSplitter.Action]) -> [(String?, Bool)] {
        actions.compactMap {
            if case let .end(segment, complete) = $0 { return (segment.metadata?.title, complete) }; return nil
        }
    }

    func testSplitterCutsAtTheNextFrameAfterATitleAndKeepsGapsApart() {
        var splitter = TrackSplitter()
        let frame = mp3Frame(fill: 5)
        var actions = splitter.receive(mp3Buffer([frame, frame, frame], offset: 0, flags: (true, false)))
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.receive(mp3Buffer([frame, frame], offset: 3 * 417))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))  // a replay changes nothing
        actions += splitter.receive(mp3Buffer([frame, frame, frame], offset: 5 * 417))
        actions += splitter.track(TrackMetadata(sequence: 3, title: "Three"))
        actions += splitter.receive(mp3Buffer([frame, frame], offset: 8 * 417))
        // Lost data: the file of "Three" ends incomplete; a new one starts after the gap.
        actions += splitter.receive(mp3Buffer([frame, frame, frame], offset: 20 * 417, flags: (false, true)))
        actions += splitter.finish()
        let ended = ends(actions)
        XCTAssertEqual(ended.map(\.0), ["One", "Two", "Three", "Three"])
        XCTAssertEqual(ended.map(\.1), [false, true, false, false], "only Two began and ended at title changes")
        let begins = actions.compactMap {
            if case let .begin(segment) = $0 { return segment }; return nil
        }
        XCTAssertEqual(begins.map(\.streamOffset), [0, 5 * 417, 8 * 417, 20 * 417], "cuts at the first frame after the title")
        let written = actions.reduce(0) {
            if case let .write(_, bytes, _) = $1 { return $0 + bytes.count }; return $0
        }
        XCTAssertEqual(written, 13 * 417, "every complete frame lands in exactly one file")
        XCTAssertTrue(actions.contains(.rename(segment: 1, metadata: TrackMetadata(sequence: 1, title: "One"))))
    }

    /// HLS hands over one parsed frame per buffer, and the framer completes a frame only when it sees the
    /// next one's sync: the connection's title, which came before the first buffer, is still its own title
    /// (not one carried over a gap), so the next title cuts a complete file instead of renaming this one.
    func testATitleBeforeTheFirstBufferIsTheConnectionsOwnEvenWhenTheFirstBufferCompletesNoFrame() {
        var splitter = TrackSplitter()
        let frame = mp3Frame(fill: 5)
        var actions = splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.receive(mp3Buffer([Array(frame.prefix(200))], offset: 0, flags: (true, false)))
        actions += splitter.receive(mp3Buffer([Array(frame.suffix(from: 200)), frame], offset: 200))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "Two"))
        actions += splitter.receive(mp3Buffer([frame, frame], offset: 2 * 417))
        actions += splitter.track(TrackMetadata(sequence: 3, title: "Three"))
        actions += splitter.receive(mp3Buffer([frame, frame], offset: 4 * 417))
        XCTAssertFalse(
            actions.contains {
                if case .rename = $0 { return true }; return false
            }, "no title replaced another: \(actions)")
        XCTAssertEqual(ends(actions).map(\.0), ["One", "Two"])
        XCTAssertEqual(ends(actions).map(\.1), [false, true], "Two began and ended at title changes")
    }

    func testSplitterNeverGluesAcrossAReconnect() {
        var splitter = TrackSplitter()
        let frame = mp3Frame(fill: 5)
        var actions = splitter.receive(mp3Buffer([frame, frame, frame], offset: 0, flags: (true, false)))
        actions += splitter.track(TrackMetadata(sequence: 1, title: "One"))
        actions += splitter.receive(mp3Buffer([frame, Array(frame.prefix(100))], offset: 3 * 417))
        actions += splitter.receive(mp3Buffer([frame, frame, frame], offset: 0, flags: (true, false), connection: 2))
        let begins = actions.compactMap {
            if case let .begin(segment) = $0 { return segment }; return nil
        }
        XCTAssertEqual(begins.map(\.connection), [1, 2])
        XCTAssertEqual(begins.last?.metadata?.title, "One", "the title carries over until the stream says otherwise")
        XCTAssertEqual(ends(actions).map(\.1), [false])
    }

    func testSplitterCutsChainedOggAtTheNewLogicalStreamAndLetsTheTitleClaimIt() {
        var splitter = TrackSplitter()
        let caps = "application/ogg"
        func buffer(_ bytes: [UInt8], _ offset: UInt64, new: Bool = false) -> TrackSplitter.Buffer {
            TrackSplitter.Buffer(bytes: bytes, caps: caps, newConnection: new, offset: offset)
        }
        let chainA =
            oggPage(serial: 1, sequence: 0, granule: 0, bos: true, body: vorbisID(rate: 8000))
            + oggPage(serial: 1, sequence: 1, granule: 8000, body: [UInt8](repeating: 1, count: 300))
        let chainB =
            oggPage(serial: 2, sequence: 0, granule: 0, bos: true, body: vorbisID(rate: 8000))
            + oggPage(serial: 2, sequence: 1, granule: 16000, body: [UInt8](repeating: 2, count: 300))
        var actions = splitter.receive(buffer(chainA, 0, new: true))
        actions += splitter.track(TrackMetadata(sequence: 1, title: "A"))
        actions += splitter.receive(buffer(chainB, UInt64(chainA.count)))
        actions += splitter.track(TrackMetadata(sequence: 2, title: "B"))  // arrives after the BOS page
        actions += splitter.finish()
        XCTAssertEqual(ends(actions).map(\.0), ["A", "B"])
        let begins = actions.compactMap {
            if case let .begin(segment) = $0 { return segment }; return nil
        }
        XCTAssertEqual(begins.map(\.streamOffset), [0, UInt64(chainA.count)])
        XCTAssertEqual(begins.map(\.startedAtBoundary), [false, true])
        XCTAssertEqual(splitter.currentSegment, nil)
    }

    /// Issue 15.17: names that fail on FAT/exFAT sticks and SMB shares are made portable by default;
    /// `names: posix` keeps every character Linux allows.
    func testPortableNamesByDefaultAndPosixOnRequest() throws {
        var template = try FileNameTemplate(FileNameTemplate.standard)
        let values = ["station": "Radio: 24/7", "artist": "AC/DC", "title": "Who <Made> \"Who\"? *Live* | Part 1...", "ext": "mp3"]
        XCTAssertEqual(template.render(values), "Radio - 24-7/AC-DC - Who (Made) 'Who' -Live- - Part 1.mp3")
        XCTAssertEqual(
            template.render(["station": "Кино", "artist": "Кино", "title": "Группа крови. ", "ext": "mp3"]),
            "Кино/Кино - Группа крови.mp3", "non-Latin text stays; no dot or space before the extension")
        XCTAssertEqual(
            template.render(["station": "con", "artist": "A", "title": "B", "ext": "mp3"]), "_con/A - B.mp3",
            "a DOS device name is not a folder Windows can open")
        XCTAssertEqual(FileNameTemplate.safeComponent("Trailing dots..."), "Trailing dots")
        XCTAssertEqual(FileNameTemplate.safeComponent("nul.txt"), "_nul.txt")
        XCTAssertEqual(FileNameTemplate.safeComponent("Tab\there: yes"), "Tabhere - yes")
        for name in ["a:b", "q?", "x*y", "\"", "<>", "|", "back\\slash", "end.", "end "] {
            let portable = FileNameTemplate.safeComponent(name)
            XCTAssertFalse(portable.contains { ":?*\"<>|\\".contains($0) }, "\(name) → \(portable)")
            XCTAssertFalse(portable.hasSuffix(".") || portable.hasSuffix(" "), "\(name) → \(portable)")
        }
        template.portable = false
        XCTAssertEqual(
            template.render(values), "Radio: 24-7/AC-DC - Who <Made> \"Who\"? *Live* | Part 1....mp3",
            "posix keeps everything but / and control characters")
        let posix = try FileSinkSettings.parse(#"{"directory": "/tmp/x", "names": "posix"}"#)
        XCTAssertFalse(posix.template.portable)
        XCTAssertTrue(try FileSinkSettings.parse(#"{"directory": "/tmp/x"}"#).template.portable)
        XCTAssertThrowsError(try FileSinkSettings.parse(#"{"directory": "/tmp/x", "names": "dos"}"#)) { error in
            XCTAssertTrue("\(error)".contains("config.names must be \"portable\""), "\(error)")
        }
    }

    /// Issue 15.18: sizes and reasons a user reads in `oton record`'s lines.
    func testSizesAndReasonsAreWordsAUserReads() {
        XCTAssertEqual(formatBytes(0), "0 B")
        XCTAssertEqual(formatBytes(812), "812 B")
        XCTAssertEqual(formatBytes(48_213), "48 KB")
        XCTAssertEqual(formatBytes(4_213_000), "4.2 MB")
        XCTAssertEqual(formatBytes(1_300_000_000), "1.3 GB")
        XCTAssertEqual(formatBytes(.max), "18446744073.7 GB", "the largest size still prints")
        XCTAssertEqual(
            placement(relativeName: "S/A - B.mp3", complete: true, seconds: 4.1, minimumSeconds: 5, policy: .incomplete),
            .drop("too short (4.1 s < 5.0 s), not kept"))
        XCTAssertEqual(
            placement(relativeName: "S/A - B.mp3", complete: true, seconds: 4.96, minimumSeconds: 5, policy: .incomplete),
            .drop("too short (4.9 s < 5.0 s), not kept"), "never \"5.0 s < 5.0 s\" (issue 39, N18)")
        // The track in progress at SIGTERM or a broken connection: kept as incomplete whatever its length (issue 37 §6).
        XCTAssertEqual(
            placement(relativeName: "S/a.mp3", complete: false, seconds: 2, minimumSeconds: 5, policy: .incomplete, cutShort: true),
            .keep("S/incomplete/a.mp3"))
        XCTAssertEqual(
            placement(relativeName: "S/a.mp3", complete: false, seconds: 0.4, minimumSeconds: 5, policy: .incomplete, cutShort: true),
            .drop("too short (0.4 s < 5.0 s), not kept"), "a few frames just before the stop are no recording")
        XCTAssertEqual(
            placement(relativeName: "S/a.mp3", complete: false, seconds: 2, minimumSeconds: 5, policy: .keep, cutShort: true),
            .keep("S/a.mp3"))
        XCTAssertEqual(
            placement(relativeName: "S/a.mp3", complete: false, seconds: 2, minimumSeconds: 5, policy: .drop, cutShort: true),
            .drop("too short (2.0 s < 5.0 s), not kept"), "--partial drop still drops it")
        XCTAssertEqual(
            placement(relativeName: "S/a.mp3", complete: false, seconds: 2, minimumSeconds: 5, policy: .incomplete, cutShort: false),
            .drop("too short (2.0 s < 5.0 s), not kept"), "a short piece that ended at a title change is still too short")
        XCTAssertEqual(
            placement(relativeName: "S/A - B.mp3", complete: false, seconds: 60, minimumSeconds: 5, policy: .drop),
            .drop("incomplete (begun or ended mid-track) and --partial drop asks not to keep those, not kept"))
    }

    func testTemplateKeepsNamesInsideTheFolder() throws {
        let template = try FileNameTemplate(FileNameTemplate.standard)
        XCTAssertEqual(
            template.render(["station": "Oton FM", "artist": "Кино", "title": "Группа крови", "ext": "mp3"]),
            "Oton FM/Кино - Группа крови.mp3")
        XCTAssertEqual(
            template.render(["station": "..", "artist": "", "title": "../../etc/passwd", "ext": "mp3"]),
            "_/Unknown artist - ..-..-etc-passwd.mp3")
        XCTAssertEqual(template.render(["station": "A\u{0}B\u{1B}", "artist": "x\ny", "title": "t\u{7F}", "ext": "mp3"]), "AB/xy - t.mp3")
        let long = template.render(["station": "S", "artist": "Ы", "title": String(repeating: "Ж", count: 400), "ext": "ogg"])
        let name = try XCTUnwrap(long.split(separator: "/").last)
        XCTAssertLessThanOrEqual(name.utf8.count, FileNameTemplate.maxComponentBytes)
        XCTAssertTrue(name.hasSuffix(".ogg"))
        XCTAssertThrowsError(try FileNameTemplate("/abs/{title}.{ext}"))
        XCTAssertThrowsError(try FileNameTemplate("{nope}.{ext}"))
        XCTAssertEqual(FileNameTemplate.safePath("../.././x/./y"), "_/_/_/x/_/y")
    }

    /// Issue 39 §4: a titleless station's tracks were "Unknown artist - Unknown title (2).ogg".
    func testATitlelessTrackIsNamedByItsStationAndWhenItBegan() throws {
        let template = try FileNameTemplate(FileNameTemplate.standard)
        let moment = FileNameTemplate.titlelessMoment
        XCTAssertEqual(
            template.render(["station": "Radio X", "artist": "", "title": " ", "ext": "ogg", moment: "2026-11-27 15.03.12"]),
            "Radio X/Radio X - 2026-11-27 15.03.12.ogg")
        XCTAssertEqual(
            template.render(["station": "", "ext": "mp3", moment: "2026-11-27 15.03.12"]),
            "Unknown station/Unknown artist - 2026-11-27 15.03.12.mp3")
        // A title alone, or an artist alone, still names the track.
        XCTAssertEqual(
            template.render(["station": "Radio X", "title": "Jingle", "ext": "mp3", moment: "2026-11-27 15.03.12"]),
            "Radio X/Unknown artist - Jingle.mp3")
        XCTAssertEqual(template.render(["station": "Radio X", "artist": "Kino", "ext": "mp3", moment: "x"]), "Radio X/Kino - Unknown title.mp3")
        XCTAssertThrowsError(try FileNameTemplate("{\(moment)}.{ext}"), "not a placeholder a template can name")
    }

    func testID3v24LayoutWithSyncsafeSizes() {
        XCTAssertEqual(ID3v2Tag.syncsafe(0x0FFF_FFFF), [0x7F, 0x7F, 0x7F, 0x7F])
        XCTAssertEqual(ID3v2Tag.syncsafe(200), [0, 0, 1, 0x48])
        let bytes = ID3v2Tag(
            title: "Песня", artist: "A", album: "S", comment: "http://x/",
            picture: .init(mimeType: "image/png", data: [UInt8](repeating: 7, count: 300))
        ).bytes()
        XCTAssertEqual(Array(bytes.prefix(6)), [0x49, 0x44, 0x33, 4, 0, 0])
        let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1) }
        XCTAssertEqual(size, bytes.count - 10)
        // First frame: TIT2, syncsafe size, flags, UTF-8 encoding byte, text.
        XCTAssertEqual(String(decoding: bytes[10..<14], as: UTF8.self), "TIT2")
        XCTAssertEqual(bytes[14..<18].reduce(0) { $0 << 7 | Int($1) }, 1 + "Песня".utf8.count)
        XCTAssertEqual(bytes[20], 3)
        XCTAssertEqual(String(decoding: bytes[21..<21 + "Песня".utf8.count], as: UTF8.self), "Песня")
        let text = String(decoding: bytes, as: UTF8.self)
        for id in ["TPE1", "TALB", "COMM", "APIC"] { XCTAssertTrue(text.contains(id), id) }
        XCTAssertEqual(ID3v2Tag.imageType([0xFF, 0xD8, 0xFF, 0xE0]), "image/jpeg")
        XCTAssertNil(ID3v2Tag.imageType(Array("<html>".utf8)))
    }

    func testSettingsAreValidatedWithClearMessages() throws {
        let settings = try FileSinkSettings.parse(#"{"directory": "/tmp/rec", "split": false, "partial": "drop", "min_seconds": 30, "disk_floor_mb": 10}"#)
        XCTAssertEqual(settings.directory, "/tmp/rec")
        XCTAssertFalse(settings.split)
        XCTAssertEqual(settings.partial, .drop)
        XCTAssertEqual(settings.diskFloorBytes, 10 << 20)
        for (json, message) in [
            (#"{}"#, "config.directory is required"),
            (#"{"directory": "/x", "partial": "maybe"}"#, "config.partial"),
            (#"{"directory": "/x", "format": "flac"}"#, "config.format must be"),
            (#"{"directory": "/x", "silence_window": -1}"#, "config.silence_window must be"),
            (#"{"directory": "/x", "format": "wav", "pad_before": 31}"#, "config.pad_before must be"),
            (#"{"directory": "/x", "colour": 1}"#, "config.colour is not a file-sink setting"),
            (#"{"directory": "/x", "template": "{title}"}"#, ".{ext}"),
        ] {
            XCTAssertThrowsError(try FileSinkSettings.parse(json)) { XCTAssertTrue("\($0)".contains(message), "\($0)") }
        }
    }

    func testEntriesLeftRecordingByAGoneProcessBecomeInterrupted() {
        func track(_ id: Int, _ session: String, _ status: RecordingIndex.Track.Status) -> RecordingIndex.Track {
            RecordingIndex.Track(
                id: id, session: session, status: status, file: "a.mp3.part", title: nil, artist: nil, station: nil,
                sequence: nil, connection: 1, started: "", sessionSeconds: 0, streamOffset: 0)
        }
        var index = RecordingIndex(tracks: [
            track(1, "2026-11-21T07:00:00Z-100", .complete), track(2, "2026-11-21T07:00:00Z-100", .recording),
            track(1, "2026-11-21T07:05:00Z-200", .recording), track(1, "2026-11-21T08:00:00Z-300", .recording),
        ])
        XCTAssertEqual(RecordingIndex.processID(ofSession: "2026-11-21T07:00:00Z-100"), 100)
        XCTAssertTrue(index.markInterrupted(except: "2026-11-21T08:00:00Z-300") { $0 == 200 })
        XCTAssertEqual(
            index.tracks.map(\.status), [.complete, .interrupted, .recording, .recording],
            "a finished track, a living process's and our own stay as they are")
        XCTAssertFalse(index.markInterrupted(except: "2026-11-21T08:00:00Z-300") { $0 == 200 }, "nothing more to mark")
    }

    func testJournalLinesReplaceTracksBySessionAndIdAndSkipALineCutShort() throws {
        func track(_ id: Int, _ session: String, _ status: RecordingIndex.Track.Status, file: String) -> RecordingIndex.Track {
            RecordingIndex.Track(
                id: id, session: session, status: status, file: file, title: "Song \(id)", artist: nil, station: nil,
                sequence: nil, connection: 1, started: "2026-11-21T07:00:00Z", sessionSeconds: 0, streamOffset: 0)
        }
        var index = RecordingIndex(tracks: [track(1, "s-100", .complete, file: "one.mp3"), track(1, "s-200", .recording, file: "x.mp3.part")])
        let line = try RecordingIndex.journalLine(track(2, "s-200", .recording, file: "two.mp3.part"))
        XCTAssertEqual(line.last, 0x0A, "one line, newline-terminated")
        XCTAssertFalse(line.dropLast().contains(0x0A), "a title with no newline of its own stays on one line")
        var journal = line
        journal += try RecordingIndex.journalLine(track(1, "s-200", .complete, file: "x.mp3"))
        journal += try RecordingIndex.journalLine(track(2, "s-200", .complete, file: "two.mp3"))
        journal += Data(#"{"id": 3, "session": "s-200", "sta"#.utf8)  // a recorder killed mid-write
        XCTAssertEqual(index.apply(journal: journal), 1, "the broken line is skipped and counted")
        XCTAssertEqual(
            index.tracks.map { "\($0.session) \($0.id) \($0.status.rawValue) \($0.file ?? "")" },
            ["s-100 1 complete one.mp3", "s-200 1 complete x.mp3", "s-200 2 complete two.mp3"],
            "later lines win; other sessions' entries stay; new tracks are appended in order")
        let once = index
        XCTAssertEqual(index.apply(journal: journal), 1)
        XCTAssertEqual(index, once, "merging the same journal twice (a merge interrupted before the journal was removed) changes nothing")
    }

    /// Issue 39, N1: a dropped piece leaves no entry in the merged index (its file is gone).
    func testDroppedTracksLeaveNoEntryOnceMerged() throws {
        func track(_ id: Int, _ status: RecordingIndex.Track.Status) -> RecordingIndex.Track {
            RecordingIndex.Track(
                id: id, session: "s-1", status: status, file: status == .dropped ? nil : "\(id).ogg", title: "Song \(id)",
                artist: nil, station: nil, sequence: nil, connection: 1, started: "2026-11-21T07:00:00Z", sessionSeconds: 0,
                streamOffset: 0)
        }
        var index = RecordingIndex(tracks: [track(1, .complete)])
        var journal = Data()
        for id in 2...1001 {
            journal += try RecordingIndex.journalLine(track(id, .recording))
            journal += try RecordingIndex.journalLine(track(id, id == 500 ? .complete : .dropped))
        }
        journal += try RecordingIndex.journalLine(track(1002, .recording))
        XCTAssertEqual(index.apply(journal: journal), 0)
        index.forgetDropped()
        XCTAssertEqual(index.tracks.map { "\($0.id) \($0.status.rawValue)" }, ["1 complete", "500 complete", "1002 recording"])
    }

    func testPlacementOfPartialAndShortTracks() {
        XCTAssertEqual(placement(relativeName: "S/a.mp3", complete: true, seconds: 200, minimumSeconds: 5, policy: .incomplete), .keep("S/a.mp3"))
        XCTAssertEqual(
            placement(relativeName: "S/a.mp3", complete: false, seconds: 200, minimumSeconds: 5, policy: .incomplete),
            .keep("S/incomplete/a.mp3"))
        XCTAssertEqual(placement(relativeName: "S/a.mp3", complete: false, seconds: 200, minimumSeconds: 5, policy: .keep), .keep("S/a.mp3"))
        guard case .drop = placement(relativeName: "S/a.mp3", complete: true, seconds: 2, minimumSeconds: 5, policy: .keep) else {
            return XCTFail("a short track is dropped")
        }
    }
}
