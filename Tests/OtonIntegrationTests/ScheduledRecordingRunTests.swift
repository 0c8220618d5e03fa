import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// What a scheduled show's service runs, taken from the written unit's ExecStart= and run directly
/// against a real Icecast: a 15 s window records 15 ± 1 s into the show's folder, named by its start.
final class ScheduledRecordingRunTests: XCTestCase {
    func testTheServiceCommandRecordsTheWindowIntoTheShowFolderByDate() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/show.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let directory = try TemporaryDirectory(self)
        let recording = try ScheduledRecording(
            show: "Jazz Hour", station: server.url(mount: "/show.mp3").absoluteString,
            time: ScheduleTime.parse(at: "Tue 20:00", every: nil), seconds: 15, outDirectory: directory.file("rec"))
        let folder = ScheduleUnitFolder(path: directory.file("units"))
        try folder.write(recording, oton: TestPaths.oton)
        let service = try String(contentsOfFile: folder.servicePath("Jazz Hour"), encoding: .utf8)
        let line = try XCTUnwrap(service.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = Self.execWords(String(line.dropFirst("ExecStart=".count)))
        XCTAssertEqual(words.first, TestPaths.oton)

        let stamps = [Date(), Date().addingTimeInterval(60)].map { FileNameTemplate_startStamp($0) }
        var environment = ProcessInfo.processInfo.environment
        for (key, sub) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")] { environment[key] = directory.file(sub) }
        let result = try runProcess(words[0], Array(words.dropFirst()), environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)

        let showFolder = directory.file("rec/Jazz Hour")
        let files = (FileManager.default.enumerator(atPath: showFolder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".mp3") }
        XCTAssertEqual(files.count, 1, "\(files) \(result.stderr)")
        let name = try XCTUnwrap(files.first)
        XCTAssertTrue(stamps.contains { name.hasSuffix("/\($0) - Artist A - Song One.mp3") || name == "\($0) - Artist A - Song One.mp3" }, name)
        let recorded = try Discovered.run(showFolder + "/" + name)
        XCTAssertTrue(recorded.ok, recorded.text)
        XCTAssertEqual(recorded.seconds, 15, accuracy: 1, "the window's length, counted in audio")
    }

    /// ExecStart= words as systemd reads oton's quoting: "…" with \\ and \", %% and $$ doubled.
    static func execWords(_ text: String) -> [String] {
        var words: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "\"") {
            var word = ""
            var index = rest.index(after: open)
            while index < rest.endIndex, rest[index] != "\"" {
                if rest[index] == "\\" { index = rest.index(after: index) }
                word.append(rest[index])
                index = rest.index(after: index)
            }
            words.append(word.replacingOccurrences(of: "%%", with: "%").replacingOccurrences(of: "$$", with: "$"))
            rest = rest[rest.index(after: index)...]
        }
        return words
    }
}

/// `{start}` as the file sink formats it ("yyyy-MM-dd HH.mm", local time).
private func FileNameTemplate_startStamp(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    return String(format: "%04d-%02d-%02d %02d.%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
}
