// Bus throughput: events per second delivered to N plugins (real C plugins
// loaded through the ABI), publishing from one thread as fast as it can.
// Usage: oton-bench-bus PLUGIN.so [PLUGIN.so …] --events COUNT
import Foundation
import OtonHost
import PluginAPI

struct NoPlayer: PlayerRequestSink {
    func submit(_ request: PlayerRequest, from source: String) {}
}

var libraries: [String] = []
var count = 200_000
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--events", let value = arguments.popFirst().flatMap(Int.init) { count = value } else { libraries.append(argument) }
}

let bus = PluginBus()
let scratch = NSTemporaryDirectory() + "/oton-bench-\(getpid())"
let manager = PluginManager(bus: bus, requests: NoPlayer(),
                            directories: .init(dataHome: scratch + "/data", cacheHome: scratch + "/cache"),
                            mailboxLimits: Mailbox.Limits(events: 1 << 20, mediaBytes: 0))
let entries = libraries.enumerated().map { index, path in
    PluginEntry(id: "org.oton.bench.\(index)", path: path, location: "bench[\(index)]")
}
for report in manager.start(entries) {
    if case let .failed(error) = report.status { FileHandle.standardError.write(Data("\(error)\n".utf8)); exit(1) }
}
let track = TrackInfo(title: "Song", artist: "Artist", rawTitle: "Artist - Song", station: "Bench FM", bitrate: 128_000, codec: "MP3")
// Warm up, then measure publish → every plugin has handled every event.
for sequence in 0 ..< 1000 { bus.publish(.track(track, sequence: UInt64(sequence))) }
manager.drain()
let start = Clock.monotonicNanoseconds()
for sequence in 0 ..< count { bus.publish(.track(track, sequence: UInt64(sequence))) }
let published = Clock.monotonicNanoseconds()
manager.drain()
let done = Clock.monotonicNanoseconds()
let drops = entries.compactMap { manager.dropCounts(of: $0.id)?.events }.reduce(0, +)
let seconds = Double(done - start) / 1e9
let delivered = Double(count * entries.count) - Double(drops)
print(String(format: "{\"plugins\": %d, \"events\": %d, \"seconds\": %.4f, \"publish_seconds\": %.4f, \"events_per_second\": %.0f, \"deliveries_per_second\": %.0f, \"dropped\": %d}",
             entries.count, count, seconds, Double(published - start) / 1e9, Double(count) / seconds, delivered / seconds, drops))
manager.shutdown()
try? FileManager.default.removeItem(atPath: scratch)
