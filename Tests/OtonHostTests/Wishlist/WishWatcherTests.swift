import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The host's wish watcher on real buses: which tracks it announces, with which sequence, whether a
/// recording keeps them (kept before, being kept by another station), and what it remembers.
final class WishWatcherTests: XCTestCase {
    private func track(_ artist: String?, _ title: String?, _ sequence: UInt64, on bus: PluginBus) {
        bus.publish(.track(TrackInfo(title: title, artist: artist, station: "S"), sequence: sequence))
    }

    private func finished(_ sequence: UInt64, status: String, path: String, on bus: PluginBus) {
        let kind = bus.registry.kind(for: OTON_EVENT_NAME_RECORDING_DONE)!
        bus.publish(
            BusEvent(
                kind: kind, name: OTON_EVENT_NAME_RECORDING_DONE, source: "org.oton.file-sink",
                extraFields: [("path", path), ("status", status), ("sequence", String(sequence))]))
    }

    func testAWishIsAnnouncedOncePerSequenceWithItsFieldsAndAConnectionsFirstTrackIsFromItsMiddle() throws {
        let bus = PluginBus()
        let collector = EventCollector(bus: bus)
        let watch = WishWatcher(wishes: [try Wish(pattern: "кино - *", field: .track)]).watch(bus: bus, station: "FM 1")
        bus.publish(.state(StateInfo(.connecting)))
        track("КИНО", "Кукушка", 1, on: bus)
        track("КИНО", "Кукушка", 1, on: bus)  // repeated: the same track
        track("Other", "Song", 2, on: bus)
        track("Кино", "Пачка сигарет", 3, on: bus)
        let second = try XCTUnwrap(collector.wait(for: OTON_EVENT_NAME_WISH_HEARD) { $0.field("sequence") == "3" })
        watch.close()
        let heard = collector.events.filter { $0.name == OTON_EVENT_NAME_WISH_HEARD }
        XCTAssertEqual(heard.map { $0.field("sequence") }, ["1", "3"], "one event per wished track")
        XCTAssertEqual(heard[0].field("from_start"), "false", "the connection's first track")
        XCTAssertEqual(second.field("from_start"), "true")
        XCTAssertEqual(second.field("station"), "FM 1")
        XCTAssertEqual(second.field("artist"), "Кино")
        XCTAssertEqual(second.field("title"), "Пачка сигарет")
        XCTAssertEqual(second.field("identity"), "кино - пачка сигарет")
        XCTAssertNil(second.field("keep"), "not recording: nothing to keep")
    }

    func testARecordingKeepsAWishOnceAndOneStationAtATime() throws {
        let directory = try TemporaryDirectory(self)
        let kept = try KeptWishes(path: directory.file("kept.json"))
        let watcher = WishWatcher(wishes: [try Wish(pattern: "Queen", field: .artist)], kept: kept)
        let (one, two) = (PluginBus(), PluginBus())
        let (seenOne, seenTwo) = (EventCollector(bus: one), EventCollector(bus: two))
        let (watchOne, watchTwo) = (watcher.watch(bus: one, station: "One"), watcher.watch(bus: two, station: "Two"))
        track("Queen", "Bohemian Rhapsody", 5, on: one)
        let first = try XCTUnwrap(seenOne.wait(for: OTON_EVENT_NAME_WISH_HEARD))
        XCTAssertEqual(first.field("keep"), "true")
        track("QUEEN", "bohemian rhapsody", 9, on: two)  // the same track at the same time elsewhere
        let meanwhile = try XCTUnwrap(seenTwo.wait(for: OTON_EVENT_NAME_WISH_HEARD))
        XCTAssertEqual(meanwhile.field("keep"), "false")
        XCTAssertEqual(meanwhile.field("why"), "being-kept")
        finished(5, status: "complete", path: "/out/One/Queen - Bohemian Rhapsody.mp3", on: one)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !(try KeptWishes(path: kept.path)).contains("queen - bohemian rhapsody") { usleep(20_000) }
        XCTAssertTrue(try KeptWishes(path: kept.path).contains("queen - bohemian rhapsody"), "a whole kept file is remembered")
        track("Queen", "Bohemian Rhapsody", 10, on: two)
        let later = try XCTUnwrap(seenTwo.wait(for: OTON_EVENT_NAME_WISH_HEARD) { $0.field("sequence") == "10" })
        XCTAssertEqual(later.field("why"), "kept-before")
        track("Queen", "Radio Ga Ga", 11, on: two)
        XCTAssertEqual(try XCTUnwrap(seenTwo.wait(for: OTON_EVENT_NAME_WISH_HEARD) { $0.field("sequence") == "11" }).field("keep"), "true")
        watchOne.close()
        watchTwo.close()

        let again = WishWatcher(wishes: [try Wish(pattern: "Queen", field: .artist)], kept: try KeptWishes(path: kept.path), again: true)
        let three = PluginBus()
        let seenThree = EventCollector(bus: three)
        let watchThree = again.watch(bus: three, station: "Three")
        track("Queen", "Bohemian Rhapsody", 1, on: three)
        XCTAssertEqual(try XCTUnwrap(seenThree.wait(for: OTON_EVENT_NAME_WISH_HEARD)).field("keep"), "true", "--again")
        watchThree.close()
    }

    func testAWishKeptOnlyFromItsMiddleIsNotRemembered() throws {
        let directory = try TemporaryDirectory(self)
        let kept = try KeptWishes(path: directory.file("kept.json"))
        let bus = PluginBus()
        let seen = EventCollector(bus: bus)
        let watch = WishWatcher(wishes: [try Wish(pattern: "Queen", field: .artist)], kept: kept).watch(bus: bus, station: "One")
        track("Queen", "Innuendo", 3, on: bus)
        XCTAssertNotNil(seen.wait(for: OTON_EVENT_NAME_WISH_HEARD))
        finished(3, status: "incomplete", path: "/out/incomplete/One/Queen - Innuendo.mp3", on: bus)
        track("Other", "Song", 4, on: bus)
        track("Queen", "Innuendo", 5, on: bus)
        XCTAssertEqual(
            try XCTUnwrap(seen.wait(for: OTON_EVENT_NAME_WISH_HEARD) { $0.field("sequence") == "5" }).field("keep"), "true",
            "heard whole later, it is kept then")
        watch.close()
        XCTAssertFalse(try KeptWishes(path: kept.path).contains("queen - innuendo"))
    }
}
