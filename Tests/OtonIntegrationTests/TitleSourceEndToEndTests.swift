import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 52: a station whose stream sends no title, on a real Icecast2, with a `status_url` on a
/// loopback status server (radio.co's documented answer): the title the station's website gives is
/// shown, kept and recorded as such — `title_source` `station-api` in `ctl status`, MPRIS (private
/// D-Bus, playerctl), the history row (SQLite) and the recorded file's tags (ffprobe) and index. A
/// stream title present and changing is never replaced by the website's.
final class TitleSourceEndToEndTests: XCTestCase {
    private static func status(_ title: String) -> CannedResponse {
        .json(#"{"status":"online","current_track":{"title":"\#(title)","start_time":"2026-11-29T06:00:00+00:00"},"history":[]}"#)
    }

    func testOtonPlayShowsAWebsiteTitleAsSuchInStatusMprisAndHistory() async throws {
        let directory = try TemporaryDirectory(self)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/quiet.mp3", format: .mp3, initialTitle: "")
        let http = try LocalHTTPServer.start(routes: ["/stations/quiet/status": Self.status("Artist Q - Song Q")])
        defer { http.stop() }
        let config = try directory.write(
            "plugins.json",
            """
            {"default_station": "Quiet FM",
             "stations": [{"name": "Quiet FM", "url": "\(icecast.url(mount: "/quiet.mp3").absoluteString)",
                           "status_url": "\(http.url("/stations/quiet/status").absoluteString)"}],
             "plugins": [
              {"id": "org.oton.history", "path": "\(TestPaths.pluginLibrary("OtonHistory"))", "enabled": true},
              {"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true,
               "config": {"notifications": false}}]}
            """)
        let instance = "titles-\(getpid())"
        let (oton, _) = try bus.startOton(["play", "--headless", "--no-tui", "--config", config, "--instance", instance], in: directory)
        defer { oton.stop() }
        func log() -> String { directory.read("oton.log") }

        func statusData(_ json: String) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["data"] as? [String: Any]
        }
        let status = try await pollUntil(timeout: 40, interval: 0.2, "ctl status with the website's title") { () -> String? in
            let result = try bus.run(TestPaths.oton, ["ctl", "--instance", instance, "--json", "status"])
            return result.status == 0 && statusData(result.stdout)?["title"] as? String == "Song Q" ? result.stdout : nil
        }
        let data = try XCTUnwrap(statusData(status))
        XCTAssertEqual(data["title_source"] as? String, "station-api", "\(status)")
        XCTAssertEqual(data["artist"] as? String, "Artist Q")
        let text = try bus.run(TestPaths.oton, ["ctl", "--instance", instance, "status"])
        XCTAssertTrue(text.stdout.contains("Artist Q – Song Q (from the station's website)"), text.stdout + text.stderr)

        let source = try await pollUntil(timeout: 20, interval: 0.2, "playerctl metadata oton:titleSource") { () -> String? in
            let result = try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", "oton:titleSource"])
            let value = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return result.status == 0 && !value.isEmpty ? value : nil
        }
        XCTAssertEqual(source, "station-api", log())
        let title = try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", "xesam:title"])
        XCTAssertEqual(title.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "Song Q", "the title itself is the title")

        let database = directory.file("data") + "/oton/plugins/org.oton.history/history.sqlite"
        let row = try await pollUntil(timeout: 20, interval: 0.2, "the history row") { () -> String? in
            let result = try runProcess("/usr/bin/sqlite3", ["-cmd", ".timeout 5000", database, "SELECT title, title_source FROM plays"])
            let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return result.status == 0 && !text.isEmpty ? text : nil
        }
        XCTAssertEqual(row, "Song Q|station-api")
        XCTAssertFalse(log().contains(" error "), log())
    }

    func testOtonRecordTagsAndIndexesAWebsiteTitleWithItsSource() async throws {
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/quiet.mp3", format: .mp3, initialTitle: "")
        let http = try LocalHTTPServer.start(routes: ["/stations/quiet/status": Self.status("Artist R - Song R")])
        defer { http.stop() }
        let run = try TemporaryDirectory(self)
        let instance = "titles-rec-\(getpid())"
        let recorder = try RecordHarness(
            self, url: "Quiet FM", extra: ["--instance", instance],
            environment: ["XDG_RUNTIME_DIR": run.path],
            config: """
                {"stations": [{"name": "Quiet FM", "url": "\(icecast.url(mount: "/quiet.mp3").absoluteString)",
                               "status_url": "\(http.url("/stations/quiet/status").absoluteString)"}], "plugins": []}
                """)
        try recorder.start()
        XCTAssertNotNil(recorder.waitForEvent("track", timeout: 40) { $0["title"] == "Song R" }, recorder.stderr)
        func stationList(_ json: String) -> [[String: Any]]? {
            ((try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["data"] as? [String: Any])?["stations"]
                as? [[String: Any]]
        }
        let reply = try await pollUntil(timeout: 20, interval: 0.2, "the recorder's status") { () -> String? in
            let result = try runProcess(
                TestPaths.oton, ["ctl", "--instance", instance, "--json", "status"], environment: ["XDG_RUNTIME_DIR": run.path])
            return result.status == 0 && stationList(result.stdout)?.first?["title"] as? String == "Song R" ? result.stdout : nil
        }
        let stations = try XCTUnwrap(stationList(reply))
        XCTAssertEqual(stations.first?["title_source"] as? String, "station-api", "\(stations)")
        // Some audio under the title, then the end: the track's file is finished and tagged.
        try await pollUntilTrue(timeout: 30, interval: 0.2, "a part file growing") {
            recorder.files().contains {
                $0.hasSuffix(".part") && (try? FileManager.default.attributesOfItem(atPath: recorder.out + "/" + $0)[.size] as? Int) ?? 0 > 48_000
            }
        }
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        let mp3 = try XCTUnwrap(recorder.files().first { $0.hasSuffix(".mp3") }, "\(recorder.files())\n\(recorder.stderr)")
        let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", recorder.out + "/" + mp3])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let tags =
            try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])?["format"] as? [String: Any])["tags"]
            as? [String: String]
        XCTAssertEqual(tags?["TITLE_SOURCE"], "station-api", probe.stdout)
        XCTAssertEqual(tags?["title"], "Song R", probe.stdout)
        // With --instance the station records into its own folder (OUT/LABEL/), its index there.
        let indexFile = try XCTUnwrap(recorder.files().first { $0.hasSuffix("index.json") }, "\(recorder.files())")
        let index = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: recorder.out + "/" + indexFile)))
        let entries = try XCTUnwrap((index as? [String: Any])?["tracks"] as? [[String: Any]])
        let entry = try XCTUnwrap(entries.first { $0["title"] as? String == "Song R" }, "\(entries)")
        XCTAssertEqual(entry["title_source"] as? String, "station-api")
    }

    func testAStreamTitleThatChangesIsNeverReplacedByTheWebsites() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/titled.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let http = try LocalHTTPServer.start(routes: ["/status": Self.status("Someone Else - Website Song")])
        defer { http.stop() }
        let harness = PlayerHarness(url: server.url(mount: "/titled.mp3").absoluteString, statusURL: http.url("/status").absoluteString)
        harness.start()
        defer { harness.stop() }
        let first = try XCTUnwrap(harness.waitForTrack(title: "Song One", timeout: 30))
        XCTAssertEqual(first.field("title_source"), "stream")
        let after = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/titled.mp3", title: "Artist B - Song Two")
        let second = try XCTUnwrap(harness.waitForTrack(title: "Song Two", timeout: 20, after: after))
        XCTAssertEqual(second.field("title_source"), "stream")
        // The website is asked for each heard title (at once, then after 2, 4 and 6 s): once a later request
        // came, the answer before it was weighed.
        let asked = http.requests(path: "/status").count
        try await pollUntilTrue(timeout: 30, interval: 0.2, "the website asked about Song Two") {
            http.requests(path: "/status").count >= asked + 2
        }
        let titled = harness.trackEvents.filter { $0.field("title") != nil }
        XCTAssertEqual(Set(titled.map { $0.field("title_source") ?? "none" }), ["stream"], "\(titled.map { $0.fields })")
        XCTAssertFalse(harness.trackEvents.contains { $0.field("title") == "Website Song" }, "the website's title never shows")
    }

    /// The archive's ledger (`NAME.jsonl` beside each segment) lists a titleless station's website titles, marked so.
    func testTheArchiveLedgerMarksAWebsiteTitle() async throws {
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/quiet.mp3", format: .mp3, initialTitle: "")
        let http = try LocalHTTPServer.start(routes: ["/stations/quiet/status": Self.status("Artist S - Song S")])
        defer { http.stop() }
        let recorder = try RecordHarness(
            self, url: "Quiet FM", extra: ["--archive", "10s"],
            config: """
                {"stations": [{"name": "Quiet FM", "url": "\(icecast.url(mount: "/quiet.mp3").absoluteString)",
                               "status_url": "\(http.url("/stations/quiet/status").absoluteString)"}], "plugins": []}
                """)
        try recorder.start()
        defer { recorder.stop() }
        let line = try await pollUntil(timeout: 60, interval: 0.2, "a ledger title line for Song S") { () -> String? in
            for file in recorder.files() where file.hasSuffix(".jsonl") && !file.hasPrefix("index") {
                let text = (try? String(contentsOfFile: recorder.out + "/" + file, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first(where: { $0.contains(#""type":"title""#) && $0.contains("Song S") }) {
                    return String(line)
                }
            }
            return nil
        }
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(fields["title_source"] as? String, "station-api", line)
        XCTAssertEqual(fields["artist"] as? String, "Artist S", line)
    }
}
