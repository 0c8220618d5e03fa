import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// An MP3 mount whose ICY title is sent as raw Windows-1251 / KOI8-R / Latin-1 bytes
/// (Icecast keeps `song=` bytes as they are when no charset is given), as old
/// station software does. GStreamer reads them as Latin-1; the player recovers them.
final class LegacyTitleEncodingTests: XCTestCase {
    private var server: IcecastServer!
    private var harnesses: [PlayerHarness] = []
    private let mount = "/legacy.mp3"

    override func setUp() async throws {
        server = try await IcecastServer.start()
        _ = try await server.startSource(mount: mount, format: .mp3, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
    }

    override func tearDown() async throws {
        harnesses.forEach { $0.stop() }
        harnesses = []
        server?.stop()
    }

    /// Sets the ICY title to these bytes, percent-encoded, with no charset.
    private func setRawTitle(_ bytes: [UInt8]) async throws {
        let encoded = bytes.map { String(format: "%%%02X", $0) }.joined()
        let response = try await server.get("/admin/metadata?mount=\(mount)&mode=updinfo&song=\(encoded)", admin: true)
        XCTAssertEqual(response.status, 200, response.text)
    }

    private func heard(_ bytes: [UInt8], encoding: TitleEncodingSetting = .auto) async throws -> BusEvent? {
        let bus = PluginBus()
        let events = EventCollector(bus: bus, id: "test.collector")
        var station = Station(name: "Legacy", url: server.url(mount: mount).absoluteString)
        station.titleEncoding = encoding
        let player = Player(station: station, bus: bus, options: Player.Options(headless: true)) { _ in }
        defer { player.shutdown() }
        player.start()
        XCTAssertNotNil(events.wait(for: "track", timeout: 15) { $0.field("title") == "Song One" })
        let sent = Clock.monotonicNanoseconds()
        try await setRawTitle(bytes)
        return events.wait(for: "track", timeout: 5) { $0.monotonicNanoseconds >= sent && $0.field("raw_title") != "Artist A - Song One" }
    }

    func testWindows1251TitleArrivesAsCyrillic() async throws {
        // "Кино - Группа крови" in Windows-1251.
        let bytes: [UInt8] = [0xCA, 0xE8, 0xED, 0xEE, 0x20, 0x2D, 0x20, 0xC3, 0xF0, 0xF3, 0xEF, 0xEF, 0xE0, 0x20, 0xEA, 0xF0, 0xEE, 0xE2, 0xE8]
        let heardTrack = try await heard(bytes)
        let track = try XCTUnwrap(heardTrack)
        XCTAssertEqual(track.field("raw_title"), "Кино - Группа крови", "\(track.fields)")
        XCTAssertEqual(track.field("artist"), "Кино")
        XCTAssertEqual(track.field("title"), "Группа крови")
    }

    func testKOI8RTitleWithTheStationSetting() async throws {
        let bytes: [UInt8] = [0xEB, 0xC9, 0xCE, 0xCF, 0x20, 0x2D, 0x20, 0xE7, 0xD2, 0xD5, 0xD0, 0xD0, 0xC1]  // "Кино - Группа"
        let heardTrack = try await heard(bytes, encoding: .koi8r)
        let track = try XCTUnwrap(heardTrack)
        XCTAssertEqual(track.field("raw_title"), "Кино - Группа", "\(track.fields)")
    }

    func testLatin1TitleWithAccents() async throws {
        let bytes: [UInt8] = Array("Bj".utf8) + [0xF6] + Array("rk - J".utf8) + [0xF3] + Array("ga".utf8)
        let heardTrack = try await heard(bytes)
        let track = try XCTUnwrap(heardTrack)
        XCTAssertEqual(track.field("raw_title"), "Björk - Jóga", "\(track.fields)")
    }

    func testUTF8TitleIsUntouched() async throws {
        let heardTrack = try await heard(Array("Кино - Звезда по имени Солнце".utf8))
        let track = try XCTUnwrap(heardTrack)
        XCTAssertEqual(track.field("raw_title"), "Кино - Звезда по имени Солнце", "\(track.fields)")
    }
}
