import MetricsLogic
import XCTest

/// One process, several sessions: what each instance counts and how the registry shows them together.
final class MetricsRegistryTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    /// The sample lines of `text` whose name is `name`, each as "labels value" (or "value").
    private func samples(_ text: String, _ name: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count)) }
    }

    func testTracksCountNewSequencesButNotBreaksReplaysOrRepeats() {
        var figures = StationFigures(station: nil, startedMonotonicNanoseconds: 0)
        figures.apply(name: "track", fields: ["sequence": "4", "station": "Jazz 24"], isReplay: true)
        figures.apply(name: "track", fields: ["sequence": "4", "bitrate": "128"], isReplay: false)  // more about the same track
        figures.apply(name: "track", fields: ["sequence": "5"], isReplay: false)
        figures.apply(name: "track", fields: ["sequence": "6", "break": "1"], isReplay: false)
        figures.apply(name: "track", fields: ["sequence": "7"], isReplay: false)
        figures.apply(name: "track", fields: ["sequence": "0"], isReplay: false)
        XCTAssertEqual(figures.tracksStarted, 2)
        XCTAssertEqual(figures.station, "Jazz 24")
    }

    func testTheConfiguredStationNameWinsOverTheStreamsAndTheStreamsFollowsTheLatestTrack() {
        var fixed = StationFigures(station: "Mine", startedMonotonicNanoseconds: 0)
        fixed.apply(name: "track", fields: ["sequence": "1", "station": "icy-name"], isReplay: false)
        XCTAssertEqual(fixed.station, "Mine")
        var followed = StationFigures(station: nil, startedMonotonicNanoseconds: 0)
        XCTAssertEqual(followed.station, "")
        followed.apply(name: "track", fields: ["sequence": "1", "station": "First"], isReplay: false)
        followed.apply(name: "track", fields: ["sequence": "1", "station": ""], isReplay: false)
        XCTAssertEqual(followed.station, "First")
        followed.apply(name: "track", fields: ["sequence": "2", "station": "Switched"], isReplay: false)
        XCTAssertEqual(followed.station, "Switched")
    }

    func testErrorsCountTransitionsIntoErrorAndReconnectsCountNewConnections() {
        var figures = StationFigures(station: "S", startedMonotonicNanoseconds: 0)
        for state in ["connecting", "playing", "error", "error", "connecting", "error", "connecting", "playing"] {
            figures.apply(name: "state", fields: ["state": state], isReplay: false)
        }
        XCTAssertEqual(figures.errors, 2)
        XCTAssertEqual(figures.state, "playing")
        for (connection, size) in [(1, 100), (1, 50), (2, 10), (2, 10), (3, 1)] {
            figures.receive(size: size, connection: UInt64(connection), monotonicNanoseconds: 7)
        }
        XCTAssertEqual(figures.reconnects, 2)
        XCTAssertEqual(figures.receivedBytes, 171)
        var replayed = StationFigures(station: "S", startedMonotonicNanoseconds: 0)
        replayed.apply(name: "state", fields: ["state": "error"], isReplay: true)
        XCTAssertEqual(replayed.errors, 0, "an error that happened before the instance is not counted")
        XCTAssertEqual(replayed.state, "error")
    }

    func testDropsKeepTheLargestTotalsPerPlugin() {
        var figures = StationFigures(station: "S", startedMonotonicNanoseconds: 0)
        figures.apply(name: "dropped", fields: ["plugin_id": "org.oton.file-sink", "dropped_events": "3", "dropped_bytes": "4096"], isReplay: false)
        figures.apply(name: "dropped", fields: ["plugin_id": "org.oton.file-sink", "dropped_events": "2", "dropped_bytes": "8192"], isReplay: false)
        figures.apply(name: "dropped", fields: ["plugin_id": "org.oton.metrics", "dropped_events": "1"], isReplay: false)
        figures.apply(name: "dropped", fields: ["dropped_events": "9"], isReplay: false)
        XCTAssertEqual(figures.drops, ["org.oton.file-sink": .init(events: 3, bytes: 8192), "org.oton.metrics": .init(events: 1, bytes: 0)])
    }

    func testTheAgeOfTheLastByteCountsFromTheStartUntilAByteComes() {
        var figures = StationFigures(station: "S", startedMonotonicNanoseconds: 10 * second)
        XCTAssertEqual(figures.secondsSinceLastByte(now: 13 * second), 3)
        figures.receive(size: 1, connection: 1, monotonicNanoseconds: 12 * second)
        XCTAssertEqual(figures.secondsSinceLastByte(now: 13 * second + second / 2), 1.5)
        XCTAssertEqual(figures.secondsSinceLastByte(now: 0), 0, "never negative")
    }

    func testSeveralInstancesEachShowTheirStationSortedAndUnregisteringRemovesOne() {
        let registry = MetricsRegistry()
        let jazz = StationMeter(station: nil, startedMonotonicNanoseconds: 0)
        let oton = StationMeter(station: nil, startedMonotonicNanoseconds: 0)
        let unnamed = StationMeter(station: nil, startedMonotonicNanoseconds: 0)
        jazz.apply(name: "track", fields: ["sequence": "1", "station": "Jazz 24"], isReplay: false)
        jazz.apply(name: "state", fields: ["state": "playing"], isReplay: false)
        jazz.receive(size: 1000, connection: 1, monotonicNanoseconds: 9 * second)
        oton.apply(name: "track", fields: ["sequence": "1", "station": "Oton FM"], isReplay: false)
        oton.apply(name: "state", fields: ["state": "connecting"], isReplay: false)
        oton.receive(size: 10, connection: 1, monotonicNanoseconds: 4 * second)
        let registrations = [
            registry.register(oton, hostVersion: "1.2.3"), registry.register(jazz, hostVersion: "9.9.9"),
            registry.register(unnamed, hostVersion: nil),
        ]
        XCTAssertEqual(registry.count, 3)
        let text = registry.render(now: 10 * second, process: nil)
        XCTAssertEqual(samples(text, "oton_build_info"), [#"{version="1.2.3",plugin_version="0.1.0"} 1"#], "the first registration names the build")
        XCTAssertEqual(samples(text, "oton_sessions"), [" 3"])
        XCTAssertEqual(
            samples(text, "oton_station_received_bytes_total"),
            [#"{station=""} 0"#, #"{station="Jazz 24"} 1000"#, #"{station="Oton FM"} 10"#])
        XCTAssertEqual(
            samples(text, "oton_station_last_byte_age_seconds"),
            [#"{station=""} 10"#, #"{station="Jazz 24"} 1"#, #"{station="Oton FM"} 6"#])
        XCTAssertTrue(samples(text, "oton_station_state").contains(#"{station="Jazz 24",state="playing"} 1"#), text)
        XCTAssertTrue(samples(text, "oton_station_state").contains(#"{station="Oton FM",state="playing"} 0"#), text)
        XCTAssertTrue(samples(text, "oton_station_state").contains(#"{station="Oton FM",state="connecting"} 1"#), text)
        XCTAssertFalse(text.contains("process_"), "no process figures were given")

        registry.unregister(registrations[1])
        registry.unregister(registrations[1])  // twice is harmless
        let after = registry.render(now: 10 * second, process: nil)
        XCTAssertEqual(samples(after, "oton_station_received_bytes_total"), [#"{station=""} 0"#, #"{station="Oton FM"} 10"#])
        XCTAssertFalse(after.contains("Jazz 24"), after)
        registry.unregister(registrations[0])
        registry.unregister(registrations[2])
        let empty = registry.render(now: 10 * second, process: nil)
        XCTAssertEqual(samples(empty, "oton_sessions"), [" 0"])
        XCTAssertFalse(empty.contains("oton_station_"), "no station, no station families (and no HELP lines alone):\n\(empty)")
    }

    func testTwoSessionsOfOneStationAddUpIntoOneSeriesEach() {
        let registry = MetricsRegistry()
        let first = StationMeter(station: "Same", startedMonotonicNanoseconds: 0)
        let second = StationMeter(station: "Same", startedMonotonicNanoseconds: 0)
        first.apply(name: "state", fields: ["state": "playing"], isReplay: false)
        second.apply(name: "state", fields: ["state": "playing"], isReplay: false)
        first.receive(size: 5, connection: 1, monotonicNanoseconds: 2 * self.second)
        second.receive(size: 7, connection: 1, monotonicNanoseconds: 8 * self.second)
        first.apply(name: "dropped", fields: ["plugin_id": "p", "dropped_events": "1", "dropped_bytes": "2"], isReplay: false)
        second.apply(name: "dropped", fields: ["plugin_id": "p", "dropped_events": "3", "dropped_bytes": "4"], isReplay: false)
        _ = registry.register(first, hostVersion: nil)
        _ = registry.register(second, hostVersion: nil)
        let text = registry.render(now: 10 * self.second, process: nil)
        XCTAssertEqual(samples(text, "oton_station_received_bytes_total"), [#"{station="Same"} 12"#])
        XCTAssertEqual(samples(text, "oton_station_last_byte_age_seconds"), [#"{station="Same"} 2"#], "the youngest byte")
        XCTAssertTrue(samples(text, "oton_station_state").contains(#"{station="Same",state="playing"} 2"#), text)
        XCTAssertEqual(samples(text, "oton_plugin_dropped_events_total"), [#"{station="Same",plugin="p"} 4"#])
        XCTAssertEqual(samples(text, "oton_plugin_dropped_bytes_total"), [#"{station="Same",plugin="p"} 6"#])
        XCTAssertEqual(samples(text, "oton_build_info"), [#"{version="unknown",plugin_version="0.1.0"} 1"#])
    }

    func testMetersCountedFromManyThreadsLoseNothing() {
        let registry = MetricsRegistry()
        let meters = (0..<8).map { StationMeter(station: "S\($0)", startedMonotonicNanoseconds: 0) }
        for meter in meters { _ = registry.register(meter, hostVersion: nil) }
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for _ in 0..<10_000 { meters[index].receive(size: 3, connection: 1, monotonicNanoseconds: 1) }
            _ = registry.render(now: 2, process: nil)  // scrapes while others count
        }
        let text = registry.render(now: 2, process: nil)
        XCTAssertEqual(samples(text, "oton_station_received_bytes_total"), (0..<8).map { #"{station="S\#($0)"} 30000"# })
    }
}
