import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// A switch while the old station's failure is still being diagnosed (a connection that delivered
/// nothing is asked once more, up to 3 s): the late diagnosis belongs to the old station and must
/// not fail the new one while the new station's playlist is still being fetched.
final class SwitchDuringDiagnosisTests: XCTestCase {
    func testALateDiagnosisOfTheOldStationDoesNotFailTheNewOne() async throws {
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/new.mp3", format: .mp3, initialTitle: "Artist N - New Song", stationName: "New FM")
        // The old station answers "audio" with nothing in it; the second request (the diagnosis) is answered after 1 s.
        let old = try LocalHTTPServer.start()
        defer { old.stop() }
        old.setHandler { request in
            if old.requests(path: "/old.mp3").count > 1 { Thread.sleep(forTimeInterval: 1) }
            return CannedResponse(headers: ["Content-Type": "audio/mpeg"], body: Data())
        }
        // The new station is a playlist that takes 2 s to arrive: its connection starts after the diagnosis ends.
        let lists = try LocalHTTPServer.start()
        defer { lists.stop() }
        lists.setHandler { request in
            guard request.path == "/new.m3u" else { return nil }
            Thread.sleep(forTimeInterval: 2)
            return CannedResponse(headers: ["Content-Type": "audio/x-mpegurl"], body: Data("\(icecast.url(mount: "/new.mp3"))\n".utf8))
        }
        let oton = try OtonProcess(
            self, arguments: ["play", "Old", "--headless"],
            plugins: """
                {"stations": [{"name": "Old", "url": "\(old.url("/old.mp3"))"}, {"name": "New", "url": "\(lists.url("/new.m3u"))"}], "plugins": []}
                """)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        _ = try await old.waitForRequest(path: "/old.mp3", timeout: 10)
        _ = try await pollUntil(timeout: 10, interval: 0.02, "the diagnosis of the old station") {
            old.requests(path: "/old.mp3").count >= 2 ? true : nil
        }

        XCTAssertEqual(try oton.ctl(["station", "New"]).stdout, "switching to New\n")
        var seen: [String] = []
        let track = events.waitForEvent("track", timeout: 15, where: { $0["title"] == "New Song" }) { event in
            let fields = event.fields
            if event.kind == "state" { seen.append([fields["state"], fields["error_kind"]].compactMap { $0 }.joined(separator: " ")) }
        }
        XCTAssertNotNil(track, "the new station plays: \(seen)\n\(oton.directory.read("stderr.log"))")
        let afterSwitch = seen.drop { $0 != "stopped" }
        XCTAssertFalse(afterSwitch.contains { $0.hasPrefix("error") }, "the old station's diagnosis failed the new one: \(seen)")
        XCTAssertEqual(lists.requests(path: "/new.m3u").count, 1, "the new station connected once, without a retry")
    }
}
