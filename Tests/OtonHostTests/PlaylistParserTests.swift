import Foundation
import XCTest

@testable import OtonHost

final class PlaylistParserTests: XCTestCase {
    private let base = URL(string: "http://radio.example/lists/station.pls")!

    private func parse(_ text: String, _ format: PlaylistFormat, base: URL? = nil) throws -> Playlist {
        try PlaylistParser.parse(Data(text.utf8), format: format, base: base ?? self.base)
    }

    // MARK: PLS

    func testPLSOrdersByNumberWithKeysInAnyCase() throws {
        let text =
            "[playlist]\r\nNumberOfEntries=2\r\nfile2=http://b.example/stream\r\nTITLE2=Backup\r\nFile1=http://a.example:8000/live\r\nTitle1=Main (128k)\r\nLength1=-1\r\nVersion=2\r\n"
        let playlist = try parse(text, .pls)
        XCTAssertEqual(
            playlist.entries,
            [
                PlaylistEntry(url: "http://a.example:8000/live", title: "Main (128k)"),
                PlaylistEntry(url: "http://b.example/stream", title: "Backup"),
            ])
    }

    func testPLSResolvesRelativeEntries() throws {
        let playlist = try parse("[playlist]\nFile1=../live.mp3\nFile2=/root.ogg\n", .pls)
        XCTAssertEqual(playlist.entries.map(\.url), ["http://radio.example/live.mp3", "http://radio.example/root.ogg"])
    }

    // MARK: M3U

    func testExtendedM3UWithBOMCRLFTitlesAndComments() throws {
        let text =
            "\u{FEFF}#EXTM3U\r\n#PLAYLIST:Radio Example\r\n# a comment\r\n#EXTINF:-1 tvg-name=\"a,b\",Radio Example – 128k\r\nhttp://a.example/live\r\n\r\nhttps://b.example/backup.aac\r\n"
        let playlist = try parse(text, .m3u)
        XCTAssertEqual(playlist.title, "Radio Example")
        XCTAssertEqual(
            playlist.entries,
            [
                PlaylistEntry(url: "http://a.example/live", title: "Radio Example – 128k"),
                PlaylistEntry(url: "https://b.example/backup.aac", title: nil),
            ])
    }

    func testPlainM3UWithRelativePaths() throws {
        let playlist = try parse("live.mp3\nsub/backup.ogg\n", .m3u, base: URL(string: "http://h.example/a/list.m3u")!)
        XCTAssertEqual(playlist.entries.map(\.url), ["http://h.example/a/live.mp3", "http://h.example/a/sub/backup.ogg"])
    }

    /// An HLS playlist is not a list of stations: the parser refuses it, and the resolver hands it to
    /// GStreamer's HLS demuxer as a stream of its own, from a file (here) or over HTTP (HLSPlaybackTests).
    func testHLSIsNotParsedAsAStationListButResolvedAsAStream() throws {
        let texts = [
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nseg1.aac\n",
            "\u{FEFF}#EXTM3U\r\n#EXT-X-STREAM-INF:BANDWIDTH=128000\r\nchunklist.m3u8\r\n",
            "#EXTM3U\n#ext-x-media-sequence:7\nseg7.ts\n",
        ]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oton-hls-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, text) in texts.enumerated() {
            XCTAssertThrowsError(try parse(text, .m3u), text) { error in
                XCTAssertEqual(error as? PlaylistParser.Failure, .hls)
            }
            XCTAssertTrue(HLSDetector.isHLS(Data(text.utf8)), text)
            let path = directory.appendingPathComponent("live\(index).m3u8").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let resolved = try StreamResolver().resolveNow(path).get()
            XCTAssertEqual(resolved, ResolvedStream(url: path, isHLS: true), text)
        }
        XCTAssertFalse(HLSDetector.isHLS(Data("#EXTM3U\n#EXTINF:-1,Radio\nhttp://a.example/live\n".utf8)), "a station list is not HLS")
        XCTAssertFalse(HLSDetector.isHLS(Data("#EXTM3U\n#EXTINF:-1,#EXT-X-TARGETDURATION in a title\nhttp://a.example/live\n".utf8)))
        let missing = PlaybackErrorKind.streamUnavailable(reason: .playlist(.hls))
        XCTAssertTrue(missing.message.contains("HLS"))
        XCTAssertTrue(missing.recoverySuggestion.contains("gstreamer1.0-plugins-bad"), missing.recoverySuggestion)
    }

    // MARK: XSPF

    func testXSPFLocationsTitlesAndEntities() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/">
              <title>Station &amp; Friends</title>
              <trackList>
                <track><title>Main</title><location>http://a.example/live?x=1&amp;y=2</location></track>
                <track><location> relative.ogg </location></track>
              </trackList>
            </playlist>
            """
        let playlist = try parse(text, .xspf)
        XCTAssertEqual(playlist.title, "Station & Friends")
        XCTAssertEqual(
            playlist.entries,
            [
                PlaylistEntry(url: "http://a.example/live?x=1&y=2", title: "Main"),
                PlaylistEntry(url: "http://radio.example/lists/relative.ogg", title: nil),
            ])
    }

    // MARK: ASX

    func testASXWithTagsInAnyCaseAndUnquotedAttributes() throws {
        let text = """
            <ASX version="3.0"><Title>Radio ASX</Title>
            <Entry><TITLE>First</TITLE><REF HREF="http://a.example/live"/><ref href=http://a2.example/live /></Entry>
            <entry><ref   href = 'mms://old.example/x' /><Ref href="http://b.example/stream"></entry>
            </ASX>
            """
        let playlist = try parse(text, .asx)
        XCTAssertEqual(playlist.title, "Radio ASX")
        XCTAssertEqual(
            playlist.entries,
            [
                PlaylistEntry(url: "http://a.example/live", title: "First"),
                PlaylistEntry(url: "http://a2.example/live", title: "First"),
                PlaylistEntry(url: "http://b.example/stream", title: nil),
            ])
        XCTAssertEqual(playlist.refusedEntries, ["mms://old.example/x"])
    }

    // MARK: hostile input

    func testOtherSchemesAreRefused() throws {
        let text = "file:///etc/passwd\njavascript:alert(1)\ndata:audio/mp3;base64,AAAA\nftp://x.example/a.mp3\nhttp:///nohost\nhttp://ok.example/live\n"
        let playlist = try parse(text, .m3u)
        XCTAssertEqual(playlist.entries.map(\.url), ["http://ok.example/live"])
        XCTAssertEqual(playlist.refusedEntries.count, 5)
    }

    func testLocalPlaylistMayListLocalFiles() throws {
        let playlist = try parse("song.mp3\nfile:///music/b.ogg\n", .m3u, base: URL(fileURLWithPath: "/music/list.m3u"))
        XCTAssertEqual(playlist.entries.map(\.url), ["file:///music/song.mp3", "file:///music/b.ogg"])
    }

    func testBodyOverOneMiBIsRefused() {
        let body = Data(repeating: UInt8(ascii: "#"), count: PlaylistParser.maxBytes + 1)
        XCTAssertThrowsError(try PlaylistParser.parse(body, format: .m3u, base: base)) { error in
            XCTAssertEqual(error as? PlaylistParser.Failure, .tooLarge(limit: 1024 * 1024))
        }
    }

    func testEntriesAreCappedAtTenThousand() throws {
        let text = (0..<10_050).map { "http://h.example/\($0)" }.joined(separator: "\n")
        let playlist = try parse(text, .m3u)
        XCTAssertEqual(playlist.entries.count, 10_000)
        XCTAssertTrue(playlist.wasTruncated)
        XCTAssertEqual(playlist.entries.last?.url, "http://h.example/9999")
    }

    // MARK: detection

    func testDetectionByBytesWinsOverALyingContentType() {
        let url = URL(string: "http://h.example/listen")!
        func format(_ text: String, _ type: String? = "text/html") -> PlaylistFormat? {
            PlaylistDetector.format(body: Data(text.utf8), contentType: type, url: url)
        }
        XCTAssertEqual(format("[playlist]\nFile1=http://a/\n"), .pls)
        XCTAssertEqual(format("\u{FEFF}#EXTM3U\nhttp://a/\n"), .m3u)
        XCTAssertEqual(format("http://a.example/live\nhttp://b.example/live\n"), .m3u)
        XCTAssertEqual(format("<?xml version=\"1.0\"?><playlist xmlns=\"http://xspf.org/ns/0/\"><trackList/></playlist>"), .xspf)
        XCTAssertEqual(format("<asx version=\"3.0\"></asx>"), .asx)
        XCTAssertNil(format("<!DOCTYPE html><html><body>Listen</body></html>"))
        XCTAssertNil(format("ID3\u{3}\u{0}\u{0}\u{0}", "audio/mpeg"))
        XCTAssertEqual(format("live.mp3\n", "audio/x-mpegurl"), .m3u)
        XCTAssertNil(format("just some words\n", "text/plain"))
    }
}
