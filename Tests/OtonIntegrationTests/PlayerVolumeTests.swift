import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Relative volume is the player's own arithmetic (issue 16.3): two quick +5 from different
/// clients both count, and the snapshot is typed, not read back out of an event's text.
final class PlayerVolumeTests: XCTestCase {
    func testRelativeChangesApplyToThePlayersOwnVolumeInOrder() throws {
        let harness = PlayerHarness(url: "http://127.0.0.1:9/none.mp3")
        defer { harness.stop() }
        harness.player.submit(.setVolume(0.5), from: "test")
        harness.player.submit(.changeVolume(byPercent: 5), from: "control")
        harness.player.submit(.changeVolume(byPercent: 5), from: "terminal")
        harness.player.submit(.changeVolume(byPercent: -200), from: "control")
        harness.player.submit(.changeVolume(byPercent: 500), from: "control")
        let last = try XCTUnwrap(
            harness.events.wait(for: "volume", timeout: 5) { $0.field("volume_percent") == "150" },
            "\(harness.events.events.filter { $0.name == "volume" }.map(\.fields))")
        let percents = harness.events.events.filter { $0.name == "volume" && $0.monotonicNanoseconds <= last.monotonicNanoseconds }
            .compactMap { $0.field("volume_percent") }
        XCTAssertEqual(Array(percents.suffix(5)), ["50", "55", "60", "0", "150"], "each change starts from the one before, clamped to 0–150")
        XCTAssertEqual(harness.player.snapshot.volumePercent, 150)
        XCTAssertEqual(harness.player.snapshot.volume, 1.5, accuracy: 1e-9)
    }
}
