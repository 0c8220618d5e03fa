import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton window` switching stations many times, as WindowTests drives it (Xvfb, AT-SPI, a real Icecast):
/// a switch only moves the favourites' "now playing" mark, so the window's memory stays flat and GTK
/// has nothing to warn about.
final class WindowStationSwitchMemoryTests: XCTestCase {
    private var server: IcecastServer?
    private var desktop: DesktopSession?

    /// Switches after the warm-up, and the growth of the window's resident memory they may cause. With the
    /// rows made again on each switch (their popovers never unparented) 100 switches grew it by about 11 MiB
    /// and the window printed two GTK warnings each; without, 200 grew it by 76 KiB. A switch takes about 1.6 s
    /// (the new station's title is shown as its audio plays): 100 keep the test within a few minutes.
    static let switches = 100
    static let warmUp = 20
    static let boundKilobytes = 4 * 1024

    override func tearDown() async throws {
        server?.stop()
        server = nil
        desktop?.stop()
        desktop = nil
    }

    /// Next station, 120 times between two stations, each switch waited for until the title label shows the
    /// new station's title: after the first 20, the window's RSS grows by less than the bound, and its
    /// output has no "Finalizing … still has children left" from GTK.
    func testAHundredSwitchesKeepTheWindowsMemoryFlat() async throws {
        let server = try await IcecastServer.start()
        self.server = server
        _ = try await server.startSource(mount: "/a.mp3", format: .mp3, initialTitle: "Artist - Song A", stationName: "A FM")
        _ = try await server.startSource(mount: "/b.mp3", format: .mp3, initialTitle: "Artist - Song B", stationName: "B FM")
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        self.desktop = desktop
        let (a, b) = (server.url(mount: "/a.mp3").absoluteString, server.url(mount: "/b.mp3").absoluteString)
        let driver = try WindowDriver(
            self, desktop: desktop,
            plugins: #"{"default_station": "A FM", "stations": [{"name": "A FM", "url": "\#(a)"}, {"name": "B FM", "url": "\#(b)"}], "plugins": []}"#)
        try driver.open(["--instance", "switches", "--size", "1280x800"])
        let first = driver.waitForText("Title") { $0 == "Song A" }
        XCTAssertTrue(first.matched, "saw \(first.last ?? "nothing"); log: \(driver.log)\n\(driver.tree())")
        XCTAssertTrue(driver.waitForButton("B FM"), "both favourites shown: \(driver.buttonNames())")

        // Next from A is B, from B is A: switch i (from 1) shows Song B when odd.
        let titles = { (count: Int) in (1...count).map { $0 % 2 == 1 ? "Song B" : "Song A" } }
        let warm = driver.driveAnswer(["press-each", "Next station", "Title", "60"] + titles(Self.warmUp), seconds: 600)
        XCTAssertNotNil(warm.answer, "the warm-up switches: \(warm.failure)\n\(driver.log)")
        let before = try XCTUnwrap(driver.windowResidentKilobytes, "the window runs")
        let started = Date()
        let switched = driver.driveAnswer(["press-each", "Next station", "Title", "60"] + titles(Self.switches), seconds: 1200)
        let seconds = try XCTUnwrap(switched.answer?["seconds"]?.arrayValue?.compactMap(\.numberValue), "the switches: \(switched.failure)\n\(driver.log)")
        XCTAssertEqual(seconds.count, Self.switches)
        let after = try XCTUnwrap(driver.windowResidentKilobytes, "the window runs after the switches")
        let grown = after - before
        print(
            "[measure] oton window: \(Self.switches) station switches in \(String(format: "%.1f", Date().timeIntervalSince(started))) s "
                + "(slowest \(seconds.max() ?? 0) s): RSS \(before / 1024) MiB → \(after / 1024) MiB, "
                + "\(grown >= 0 ? "+" : "")\(grown) KiB (\(String(format: "%.1f", Double(grown) / Double(Self.switches))) KiB a switch)")
        XCTAssertLessThan(grown, Self.boundKilobytes, "\(Self.switches) switches grew the window by \(grown) KiB")

        let log = driver.log
        XCTAssertFalse(log.contains("Finalizing") || log.contains("still has children"), "GTK warned:\n\(log.suffix(2000))")
    }
}
