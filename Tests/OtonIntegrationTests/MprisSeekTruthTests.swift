import Foundation
import IcecastFixture
import OtonHost
import OtonJSON
import OtonTestSupport
import XCTest

/// MPRIS's CanSeek, Seek, Position and Seeked tell exactly what timeshift can (docs/timeshift.md):
/// true on a timeshifted live MP3 from Icecast, where Seek moves playback behind live (as
/// `oton ctl status` reads it) and Seeked is emitted, for a seek from elsewhere too; false on HLS,
/// where the host has no ring.
final class MprisSeekTruthTests: XCTestCase {
    private func property(_ bus: PrivateSessionBus, _ name: String) throws -> String {
        try bus.run(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--dest", "org.mpris.MediaPlayer2.oton", "--object-path", "/org/mpris/MediaPlayer2",
                "--method", "org.freedesktop.DBus.Properties.Get", "org.mpris.MediaPlayer2.Player", name,
            ]
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func call(_ bus: PrivateSessionBus, _ method: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try bus.run(
            "/usr/bin/gdbus",
            ["call", "--session", "--dest", "org.mpris.MediaPlayer2.oton", "--object-path", "/org/mpris/MediaPlayer2", "--method", method] + arguments)
    }

    /// `oton ctl --json status`'s data.
    private func status(_ oton: OtonProcess) throws -> [String: JSONValue] {
        let result = try oton.ctl(["--json", "status"])
        return (try? JSONValue.parse(Data(result.stdout.utf8)))?["data"]?.objectValue ?? [:]
    }

    /// "(<int64 12345>,)" or dbus-monitor's "   int64 12345" → 12345 (the last number: "int64" has digits too).
    private static func int64(_ reply: String) -> Int64? {
        reply.split(whereSeparator: { !"-0123456789".contains($0) }).compactMap { Int64($0) }.last
    }

    func testOnATimeshiftedMP3SeekMovesBehindLiveAndSaysSeeked() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let directory = try TemporaryDirectory(self)
        let seeked = try BusMonitor(
            self, bus: bus, rule: "type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked'", in: directory, name: "seeked.log")
        try await seeked.waitUntilListening(bus)
        let station = try await TimeshiftStation.start(self)
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless", "--timeshift", "10m"], plugins: MprisDesktopTests.plugins(station: station.url),
            instance: "seek", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try oton.connect(timeout: 30)

        try await pollUntilTrue(timeout: 60, "CanSeek true with a ring: \(oton.directory.read("stderr.log"))") { try property(bus, "CanSeek") == "(<true>,)" }
        // Enough in the ring to go 8 s back (the position at live is what it holds).
        let live = try await pollUntil(timeout: 90, interval: 0.5, "12 s in the ring") { () -> Int64? in
            guard let position = Self.int64(try property(bus, "Position")), position > 12_000_000 else { return nil }
            return position
        }
        XCTAssertEqual(Double(try status(oton)["behind_live_ms"]?.numberValue ?? -1), 0, accuracy: 1500, "at live")
        XCTAssertFalse(seeked.text.contains("member=Seeked"), "no Seeked before a seek")

        let seek = try call(bus, "org.mpris.MediaPlayer2.Player.Seek", ["--", "-8000000"])
        XCTAssertEqual(seek.status, 0, seek.stderr)
        let behind = try await pollUntil(timeout: 30, interval: 0.2, "playback 8 s behind live") { () -> Double? in
            guard let ms = try status(oton)["behind_live_ms"]?.numberValue, ms > 4000 else { return nil }
            return ms
        }
        XCTAssertEqual(behind, 8000, accuracy: 2500, "Seek(-8 s) is 8 s behind live, as oton ctl status says")
        let signal = try await pollUntil(timeout: 30, interval: 0.2, "the Seeked signal: \(seeked.text)") { Self.seekedValues(seeked.text).first }
        XCTAssertEqual(Double(signal), Double(live) - 8_000_000, accuracy: 4_000_000, "Seeked carries the new position in the ring (µs)")
        let position = Self.int64(try property(bus, "Position")) ?? -1
        let held = Int64(try status(oton)["timeshift_held_ms"]?.numberValue ?? 0) * 1000
        XCTAssertEqual(Double(position), Double(held) - behind * 1000, accuracy: 2_500_000, "Position is the ring's length less what is behind live")

        // A move from elsewhere (oton ctl, the window, the terminal) is said too: `live` puts the position at the ring's end.
        XCTAssertEqual(try oton.ctl(["live"]).status, 0)
        let atLive = try await pollUntil(timeout: 30, interval: 0.2, "Seeked after oton ctl live: \(seeked.text)") { () -> Int64? in
            let values = Self.seekedValues(seeked.text)
            return values.count >= 2 ? values[1] : nil
        }
        let heldNow = Int64(try status(oton)["timeshift_held_ms"]?.numberValue ?? 0) * 1000
        XCTAssertEqual(Double(atLive), Double(heldNow), accuracy: 2_500_000, "at live the position is the ring's length")
        XCTAssertEqual(Self.seekedValues(seeked.text).count, 2, "one Seeked per move: \(seeked.text)")
    }

    /// The int64 of each Seeked signal dbus-monitor printed, in order.
    private static func seekedValues(_ text: String) -> [Int64] {
        let lines = text.split(separator: "\n").map(String.init)
        return lines.indices.compactMap { index in
            guard lines[index].contains("member=Seeked"), index + 1 < lines.count, lines[index + 1].contains("int64") else { return nil }
            return int64(lines[index + 1])
        }
    }

    func testOnHLSNothingSeeksAndCanSeekStaysFalse() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let station = try HLSStation(self)
        try await assertNoSeeking(on: bus, url: station.url("/live.m3u8"), timeshift: "10m", instance: "hls-seek")
    }

    func testWithTimeshiftOffCanSeekIsFalseOnTheSameMP3() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let station = try await TimeshiftStation.start(self)
        try await assertNoSeeking(on: bus, url: station.url, timeshift: "0", instance: "off-seek")
    }

    /// `oton play URL --timeshift T` plays, keeps no ring (status has no behind_live_ms, `ctl seek` refuses),
    /// and MPRIS says so: CanSeek false, Position 0, Seek inert.
    private func assertNoSeeking(on bus: PrivateSessionBus, url: String, timeshift: String, instance: String) async throws {
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless", "--timeshift", timeshift],
            plugins: MprisDesktopTests.plugins(station: url), instance: instance, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try oton.connect(timeout: 30)
        try await pollUntilTrue(timeout: 60, "playing: \(oton.directory.read("stderr.log"))") {
            try status(oton)["state"]?.stringValue == "playing" && property(bus, "PlaybackStatus") == "(<'Playing'>,)"
        }
        XCTAssertNil(try status(oton)["behind_live_ms"], "the host keeps no ring here")
        XCTAssertNotEqual(try oton.ctl(["seek", "-5s"]).status, 0, "oton ctl seek refuses too")
        // With a ring, CanSeek turns true within a second of playing (the first test); here it stays false.
        let until = Date().addingTimeInterval(5)
        while Date() < until {
            XCTAssertEqual(try property(bus, "CanSeek"), "(<false>,)")
            try await Task.sleep(for: .milliseconds(250))
        }
        XCTAssertEqual(try property(bus, "Position"), "(<int64 0>,)")
        XCTAssertEqual(try call(bus, "org.mpris.MediaPlayer2.Player.Seek", ["--", "-5000000"]).status, 0, "Seek does nothing, as the spec says")
        XCTAssertNil(try status(oton)["behind_live_ms"])
    }
}
