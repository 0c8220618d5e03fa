// CPU of polling 100 favourites' now-playing providers (issue 52): each round asks 100 stations once
// through StationStatusPoller (libcurl over loopback + the catalogue's reader: 40 Icecast status pages
// of 20 mounts, 30 AzuraCast answers, 30 SHOUTcast 1 `7.html`); the peer in the same run makes the
// same 100 GETs with CappedHTTPClient and reads nothing. A local python3 http.server serves the files.
// Usage: oton-bench-now-playing [--rounds N]   (prints one JSON line per figure)
import Foundation
import OtonHTTP
import OtonHost

var rounds = 20
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--rounds", let value = arguments.popFirst().flatMap(Int.init) { rounds = value }
}

let folder = NSTemporaryDirectory() + "oton-bench-np-\(getpid())"
try FileManager.default.createDirectory(atPath: folder + "/api/nowplaying", withIntermediateDirectories: true)
let sources = (0..<20).map { index in
    #"{"listenurl":"http://internal:8000/mount\#(index)","artist":"Artist \#(index)","title":"Song \#(index)","server_name":"Station \#(index)","bitrate":128,"listeners":\#(index * 3),"stream_start_iso8601":"2026-11-29T06:00:00+0000"}"#
}
try #"{"icestats":{"admin":"a@b","host":"internal","server_id":"Icecast 2.4.4","source":[\#(sources.joined(separator: ","))]}}"#
    .write(toFile: folder + "/status-json.xsl", atomically: true, encoding: .utf8)
try
    #"{"station":{"name":"Azura"},"now_playing":{"played_at":1732873200,"duration":200,"song":{"artist":"A","title":"B","text":"A - B","art":"https://x.example/a.jpg"}},"song_history":[]}"#
    .write(toFile: folder + "/api/nowplaying/s1", atomically: true, encoding: .utf8)
try "<html><body>3,1,9,100,3,128,Artist - Song</body></html>".write(toFile: folder + "/7.html", atomically: true, encoding: .utf8)

let port = 18_000 + Int(getpid() % 2000)
let server = Process()
server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
server.arguments = ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder]
server.standardOutput = FileHandle.nullDevice
server.standardError = FileHandle.nullDevice
try server.run()
defer { server.terminate() }

let catalogue = NowPlayingCatalogue.load()
func poller(_ rule: String, _ stream: String) -> StationStatusPoller {
    let url = URL(string: stream)!
    let match = catalogue.candidates(for: url).first { $0.rule.name == rule }!
    return StationStatusPoller(rule: match.rule, placeholders: match.placeholders, streamURL: url)!
}
let base = "http://127.0.0.1:\(port)"
let pollers =
    (0..<40).map { poller("icecast", "\(base)/mount\($0 % 20)") } + (0..<30).map { _ in poller("azuracast", "\(base)/listen/s1/radio.mp3") }
    + (0..<30).map { _ in poller("shoutcast1", "\(base)/stream") }
let client = CappedHTTPClient(userAgent: "oton-bench")

// Wait for the server.
let ready = Date().addingTimeInterval(10)
while (try? client.get(base + "/7.html", maxBytes: 1 << 20)) == nil, Date() < ready { usleep(50_000) }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func measure(_ rounds: Int, _ body: () -> Void) -> [Double] {
    (0..<rounds).map { _ in
        let start = cpuSeconds()
        body()
        return cpuSeconds() - start
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var failures = 0
let withReading = measure(rounds) {
    for poller in pollers { if case .failure = poller.fetch() { failures += 1 } }
}
let transferOnly = measure(rounds) {
    for poller in pollers { _ = try? client.get(poller.statusURL.absoluteString, maxBytes: 1 << 20) }
}
let icecastBody = try Data(contentsOf: URL(fileURLWithPath: folder + "/status-json.xsl"))
let readOnly = measure(rounds) {
    for _ in 0..<100 {
        _ = try? NowPlayingReader.read(icecastBody, rule: pollers[0].rule!, placeholders: pollers[0].placeholders)
    }
}
try? FileManager.default.removeItem(atPath: folder)
let poll = median(withReading), peer = median(transferOnly)
print(
    #"{"figure":"CPU s per round of 100 provider polls (fetch + read)","median":\#(poll),"min":\#(withReading.min()!),"max":\#(withReading.max()!),"failures":\#(failures)}"#
)
print(#"{"figure":"CPU s per round of the same 100 GETs, nothing read (peer)","median":\#(peer),"min":\#(transferOnly.min()!),"max":\#(transferOnly.max()!)}"#)
print(#"{"figure":"ratio","value":\#(poll / peer)}"#)
print(#"{"figure":"CPU s to read 100 Icecast status pages of 20 mounts (reader alone)","median":\#(median(readOnly))}"#)
print(#"{"figure":"share of one core at one poll per 15 s","value":\#(poll / 15)}"#)
