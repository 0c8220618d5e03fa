import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Favourites out to M3U/PLS and back in, through real files.
final class StationPlaylistFileTests: XCTestCase {
    func testExportThenImportGivesTheSameStations() throws {
        let directory = try TemporaryDirectory(self)
        let path = try directory.write("plugins.json", BuiltInConfig.text)
        var file = try StationsFile.load(path)
        try file.add(Station(name: "Второе радио", url: "http://127.0.0.1:9/second?x=1&y=2"))
        try file.add(Station(name: "Line\nBreak", url: "https://127.0.0.1:9/third"))
        for format in StationPlaylistFile.Format.allCases {
            let text = StationPlaylistFile.export(file.entries, as: format)
            let imported = try StationPlaylistFile.stations(in: Data(text.utf8), file: directory.file("x.\(format.rawValue)"))
            XCTAssertEqual(imported.map(\.name), ["Oton FM", "Второе радио", "Line Break"], format.rawValue)
            XCTAssertEqual(imported.map(\.url), file.entries.map(\.url), format.rawValue)
        }
        XCTAssertEqual(StationPlaylistFile.Format(fileName: "a.M3U8"), .m3u)
        XCTAssertEqual(StationPlaylistFile.Format(fileName: "a.pls"), .pls)
        XCTAssertNil(StationPlaylistFile.Format(fileName: "a.opml"))
    }

    func testImportKeepsOnlyWebStationsAndNamesThemByHost() throws {
        let text = "#EXTM3U\nfile:///etc/passwd\nhttp://radio.example:8000/live\n#EXTINF:-1,\u{1b}[2JNamed\nhttps://b.example/s\n"
        let stations = try StationPlaylistFile.stations(in: Data(text.utf8), file: "/tmp/list.m3u")
        XCTAssertEqual(
            stations,
            [
                Station(name: "radio.example", url: "http://radio.example:8000/live"),
                Station(name: "[2JNamed", url: "https://b.example/s"),
            ])
    }
}
