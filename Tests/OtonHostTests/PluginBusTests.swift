import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// Delivery through real plugins: order, isolation of a blocked plugin, loss accounting, media.
final class PluginBusTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var bus: PluginBus!
    private var requests: RecordingRequests!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(self)
        bus = PluginBus()
        requests = RecordingRequests()
    }

    private func manager(limits: Mailbox.Limits = Mailbox.Limits()) -> PluginManager {
        PluginManager(
            bus: bus, requests: requests, directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")),
            mailboxLimits: limits)
    }

    private func probe(_ name: String, id: String, defines: [String] = [], config: [String: JSONValue]) throws -> PluginEntry {
        let path = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: name, defines: [#"PROBE_ID="\#(id)""#] + defines)
        return PluginEntry(id: id, path: path, enabled: true, config: .object(config), location: name)
    }

    func testEachPluginReceivesEventsInPublishOrder() throws {
        let manager = manager()
        manager.start([
            try probe("a", id: "org.test.a", config: ["log": .string(directory.file("a.log"))]),
            try probe("b", id: "org.test.b", config: ["log": .string(directory.file("b.log"))]),
        ])
        defer { manager.shutdown() }
        for sequence in 1...2000 {
            bus.publish(.track(TrackInfo(title: "T\(sequence)"), sequence: UInt64(sequence)))
        }
        manager.drain()
        for log in ["a.log", "b.log"] {
            let sequences = directory.lines(log).filter { $0.hasPrefix("event track") }.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("seq=") }.flatMap { UInt64($0.dropFirst(4)) }
            }
            XCTAssertEqual(sequences, Array(1...2000), log)
        }
    }

    func testBlockedPluginDelaysNeitherPublisherNorOtherPlugins() throws {
        let release = directory.file("release")
        let manager = manager()
        manager.start([
            try probe("slow", id: "org.test.slow", config: ["log": .string(directory.file("slow.log")), "block_until": .string(release)]),
            try probe("fast", id: "org.test.fast", config: ["log": .string(directory.file("fast.log"))]),
        ])
        defer {
            _ = FileManager.default.createFile(atPath: release, contents: nil)
            manager.shutdown()
        }
        let start = Clock.monotonicNanoseconds()
        for sequence in 1...100 { bus.publish(.track(TrackInfo(title: "T\(sequence)"), sequence: UInt64(sequence))) }
        let publishNanoseconds = Clock.monotonicNanoseconds() - start
        XCTAssertLessThan(publishNanoseconds, 500_000_000, "publishing must not wait for a blocked plugin")

        // The fast plugin gets everything while the slow one is still stuck on its first event.
        let fast = try XCTUnwrap(waitForLines(in: "fast.log", prefix: "event track", count: 100))
        XCTAssertEqual(fast.count, 100)
        XCTAssertEqual(directory.lines("slow.log").filter { $0.hasPrefix("event") }.count, 0)

        _ = FileManager.default.createFile(atPath: release, contents: nil)
        manager.drain()
        XCTAssertEqual(directory.lines("slow.log").filter { $0.hasPrefix("event track") }.count, 100)
    }

    func testOverflowIsCountedAnnouncedAndNoticedByTheVictim() throws {
        let release = directory.file("release")
        let manager = manager(limits: Mailbox.Limits(events: 8, mediaBytes: 1 << 20))
        let collector = EventCollector(bus: bus, id: "test.observer")
        manager.start([try probe("victim", id: "org.test.victim", config: ["log": .string(directory.file("victim.log")), "block_until": .string(release)])])
        defer { manager.shutdown() }

        bus.publish(.track(TrackInfo(title: "first"), sequence: 1))
        // Wait until the victim has taken the first event into its (blocked) hands, so the count below is exact.
        let deadline = Date().addingTimeInterval(10)
        while manager.dropCounts(of: "org.test.victim")?.events == 0 && Date() < deadline {
            bus.publish(.track(TrackInfo(title: "fill"), sequence: 2))
        }
        let dropped = try XCTUnwrap(manager.dropCounts(of: "org.test.victim")).events
        XCTAssertGreaterThan(dropped, 0)

        let announcement = collector.wait(for: "dropped") { $0.field("plugin_id") == "org.test.victim" }
        XCTAssertNotNil(announcement, "a loss is announced on the bus")
        XCTAssertEqual(announcement?.source, "org.test.victim")

        _ = FileManager.default.createFile(atPath: release, contents: nil)
        manager.drain()
        let victimLines = directory.lines("victim.log")
        XCTAssertTrue(
            victimLines.contains { $0.hasPrefix("event dropped plugin=org.test.victim events=") },
            "the victim is told it lost events: \(victimLines.suffix(3))")
        let delivered = victimLines.filter { $0.hasPrefix("event track") }.count
        let published = collector.events.filter { $0.name == "track" }.count
        XCTAssertEqual(UInt64(delivered) + dropped, UInt64(published), "every event is either delivered or counted as dropped")
    }

    func testPublishedEventsReachOthersNotTheSenderAndRequestsReachThePlayer() throws {
        let manager = manager()
        manager.start([
            try probe("one", id: "org.test.one", config: ["log": .string(directory.file("one.log"))]),
            try probe("two", id: "org.test.two", config: ["log": .string(directory.file("two.log"))]),
        ])
        defer { manager.shutdown() }
        let reply = try XCTUnwrap(manager.run(command: "probe-publish", arguments: []))
        XCTAssertEqual(reply, CommandReply(ok: true, text: "published"))
        manager.drain()
        // "probe-publish" is registered by the first plugin that declared it.
        XCTAssertTrue(directory.read("two.log").contains("event org.oton.test.probe source=org.test.one n=42"))
        XCTAssertFalse(directory.read("one.log").contains("event org.oton.test.probe"))
        XCTAssertEqual(requests.wait(forCount: 1), [.fadeVolume(to: 0.25, milliseconds: 1500)])
        XCTAssertEqual(requests.sources, ["org.test.one"])
    }

    func testCommandRepliesCarryTheArgumentsAsJSON() throws {
        let manager = manager()
        manager.start([try probe("echo", id: "org.test.echo", config: [:])])
        defer { manager.shutdown() }
        XCTAssertEqual(
            manager.run(command: "probe-echo", arguments: ["30m", "ё \"q\""]),
            CommandReply(ok: true, text: #"echo:["30m","ё \"q\""]"#))
        XCTAssertNil(manager.run(command: "no-such-command", arguments: []))
    }

    func testLateSubscriberGetsTheCurrentTrackReplayed() throws {
        bus.publish(.track(TrackInfo(title: "Already playing"), sequence: 7))
        let manager = manager()
        manager.start([try probe("late", id: "org.test.late", config: ["log": .string(directory.file("late.log"))])])
        defer { manager.shutdown() }
        manager.drain()
        XCTAssertTrue(directory.read("late.log").contains("event track seq=7 title=Already playing artist= flags=\(OTON_EVENT_FLAG_REPLAY)"))
    }

    func testMediaTapDeliversInOrderAndMarksLossAsDiscontinuity() throws {
        let release = directory.file("release")
        let manager = manager(limits: Mailbox.Limits(events: 64, mediaBytes: 4096))
        manager.start([
            try probe(
                "tap", id: "org.test.tap", defines: ["PROBE_TAPS=OTON_TAP_STREAM"],
                config: ["log": .string(directory.file("tap.log")), "block_until": .string(release)])
        ])
        defer { manager.shutdown() }
        XCTAssertEqual(bus.requestedTaps, OTON_TAP_STREAM)
        let format = MediaFormat(tap: OTON_TAP_STREAM, caps: "audio/mpeg, mpegversion=(int)1")
        var offset: UInt64 = 0
        for index in 0..<40 {
            bus.publish(media: MediaPacket(format: format, bytes: [UInt8](repeating: UInt8(index), count: 1024), offset: offset))
            offset += 1024
        }
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        manager.drain()
        bus.publish(media: MediaPacket(format: format, bytes: [99], offset: offset))
        manager.drain()
        let lines = directory.lines("tap.log").filter { $0.hasPrefix("media") }
        let counts = try XCTUnwrap(manager.dropCounts(of: "org.test.tap"))
        XCTAssertGreaterThan(counts.mediaBuffers, 0, "a consumer that falls behind loses buffers")
        XCTAssertEqual(UInt64(lines.count) + counts.mediaBuffers, 41)
        XCTAssertEqual(counts.mediaBytes, counts.mediaBuffers * 1024)
        let offsets = lines.compactMap { $0.split(separator: " ").first { $0.hasPrefix("offset=") }.flatMap { UInt64($0.dropFirst(7)) } }
        XCTAssertEqual(offsets, offsets.sorted(), "media arrives in order")
        XCTAssertTrue(lines.last?.contains("flags=1") == true, "the first buffer after a loss carries DISCONT: \(lines.last ?? "")")
        XCTAssertTrue(lines.first?.contains("caps=audio/mpeg") == true)
    }

    func testMediaIsNotDroppedForAConsumerThatKeepsUp() throws {
        let manager = manager(limits: Mailbox.Limits(events: 64, mediaBytes: 64 * 1024))
        manager.start([try probe("keeps", id: "org.test.keeps", defines: ["PROBE_TAPS=OTON_TAP_PCM"], config: ["log": .string(directory.file("k.log"))])])
        defer { manager.shutdown() }
        let format = MediaFormat(tap: OTON_TAP_PCM, caps: "audio/x-raw", sampleFormat: OTON_SAMPLE_S16LE, rate: 44100, channels: 2)
        // A real-time-like producer: 4 KiB every millisecond or so, awaited per packet batch.
        for batch in 0..<50 {
            for index in 0..<4 {
                bus.publish(media: MediaPacket(format: format, bytes: [UInt8](repeating: 1, count: 4096), offset: UInt64((batch * 4 + index) * 4096)))
            }
            manager.drain()
        }
        XCTAssertEqual(manager.dropCounts(of: "org.test.keeps")?.mediaBuffers, 0)
        XCTAssertEqual(directory.lines("k.log").filter { $0.hasPrefix("media tap=2") }.count, 200)
    }

    func testAnInstanceNarrowsItsTapsDuringCreateOnly() throws {
        let manager = manager()
        manager.start([
            try probe(
                "both", id: "org.test.both", defines: ["PROBE_TAPS=(OTON_TAP_STREAM|OTON_TAP_PCM)"],
                config: ["log": .string(directory.file("both.log")), "select_taps": .string("2")]),
            try probe(
                "wrong", id: "org.test.wrong", defines: ["PROBE_TAPS=OTON_TAP_PCM"],
                config: ["log": .string(directory.file("wrong.log")), "select_taps": .string("1")]),
        ])
        defer { manager.shutdown() }
        XCTAssertTrue(directory.read("both.log").contains("select_taps 2 status=\(OTON_OK)"), directory.read("both.log"))
        XCTAssertTrue(
            directory.read("wrong.log").contains("select_taps 1 status=\(OTON_ERR_INVALID)"),
            "a tap the descriptor does not declare is refused")
        XCTAssertEqual(bus.requestedTaps, OTON_TAP_PCM, "the stream tap declared by org.test.both was narrowed away")
        let stream = MediaFormat(tap: OTON_TAP_STREAM, caps: "audio/mpeg")
        let pcm = MediaFormat(tap: OTON_TAP_PCM, caps: "audio/x-raw", sampleFormat: OTON_SAMPLE_S16LE, rate: 44100, channels: 2)
        bus.publish(media: MediaPacket(format: stream, bytes: [1, 2, 3], offset: 0))
        bus.publish(media: MediaPacket(format: pcm, bytes: [0, 0, 0, 0], offset: 0))
        manager.drain()
        XCTAssertEqual(directory.lines("both.log").filter { $0.hasPrefix("media") }.map { String($0.prefix(11)) }, ["media tap=2"])
        XCTAssertEqual(
            manager.run(command: "probe-select-late", arguments: [])?.text, "status=\(OTON_ERR_BUSY)",
            "after create the choice is fixed")
    }

    /// Polls a log file that a plugin writes from its own thread (there is no event to await for a file).
    private func waitForLines(in name: String, prefix: String, count: Int) -> [String]? {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let lines = directory.lines(name).filter { $0.hasPrefix(prefix) }
            if lines.count >= count { return lines }
            usleep(2000)
        }
        return nil
    }
}
