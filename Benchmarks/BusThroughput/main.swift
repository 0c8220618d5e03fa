// Bus throughput: events per second delivered to N plugins (real C plugins
// loaded through the ABI), publishing from one thread as fast as it can.
// Usage: oton-bench-bus PLUGIN.so [PLUGIN.so …] --events COUNT [--isolated]
// With --isolated every plugin runs in its own `oton plugin-host` process (the oton built beside
// this program); each must answer `bench-count-N` (bench_counter.c with -DBENCH_COMMAND), whose
// reply comes after every event queued before it: the time until the last reply is end to end.
import Foundation
import OtonHost
import PluginAPI

struct NoPlayer: PlayerRequestSink {
    func submit(_ request: PlayerRequest, from source: String) {}
}

var libraries: [String] = []
var count = 200_000
var isolated = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--events", let value = arguments.popFirst().flatMap(Int.init) {
        count = value
    } else if argument == "--isolated" {
        isolated = true
    } else {
        libraries.append(argument)
    }
}

let bus = PluginBus()
let scratch = NSTemporaryDirectory() + "/oton-bench-\(getpid())"
let manager = PluginManager(
    bus: bus, requests: NoPlayer(),
    directories: .init(dataHome: scratch + "/data", cacheHome: scratch + "/cache"),
    mailboxLimits: Mailbox.Limits(events: 1 << 20, mediaBytes: 0))
let entries = libraries.enumerated().map { index, path in
    PluginEntry(id: "org.oton.bench.\(index)", path: path, location: "bench[\(index)]", isolation: isolated ? .process : .inProcess)
}
for report in manager.start(entries) {
    if case let .failed(error) = report.status { FileHandle.standardError.write(Data("\(error)\n".utf8)); exit(1) }
}
let track = TrackInfo(title: "Song", artist: "Artist", rawTitle: "Artist - Song", station: "Bench FM", bitrate: 128_000, codec: "MP3")
// Warm up, then measure publish → every plugin has handled every event.
for sequence in 0..<1000 { bus.publish(.track(track, sequence: UInt64(sequence))) }
manager.drain()
let start = Clock.monotonicNanoseconds()
for sequence in 0..<count { bus.publish(.track(track, sequence: UInt64(sequence))) }
let published = Clock.monotonicNanoseconds()
manager.drain()
// Every plugin's count: its reply follows every event it was sent (in-process and isolated alike).
let counts = entries.indices.map { index in
    manager.run(command: "bench-count-\(index)", arguments: [], timeout: 600).flatMap { $0.ok ? Int($0.text) : nil }
}
let done = Clock.monotonicNanoseconds()
let received = counts.compactMap { $0 }.reduce(0, +) - 1000 * counts.compactMap { $0 }.count
let drops = counts.contains(nil) ? entries.compactMap { manager.dropCounts(of: $0.id).map { Int($0.events) } }.reduce(0, +) : count * entries.count - received
let seconds = Double(done - start) / 1e9
let delivered = Double(count * entries.count) - Double(drops)
print(
    String(
        format:
            "{\"isolated\": \(isolated), \"plugins\": %d, \"events\": %d, \"seconds\": %.4f, \"publish_seconds\": %.4f, \"events_per_second\": %.0f, \"deliveries_per_second\": %.0f, \"dropped\": %d}",
        entries.count, count, seconds, Double(published - start) / 1e9, Double(count) / seconds, delivered / seconds, drops))
manager.shutdown()
try? FileManager.default.removeItem(atPath: scratch)
