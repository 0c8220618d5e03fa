import Foundation
import IcecastFixture

/// A local Radio Browser server: `/json/stations/search` and `/json/url/<uuid>` answering
/// with JSON shaped like the real API's. It refuses what the documentation does not allow
/// (no descriptive User-Agent, a search without a name) and has odd answers on purpose:
///   name=nothing → [], name=broken → HTTP 500, name=garbage → HTML, name=bomb → 5 MiB, name=slow → waits until
///   `release()` (or 20 s), name=huge → 20 000 entries; anything else → `stations`, after `delay` seconds
///   (a directory far away), noting when each such answer went out (``answers``).
final class FakeStationDirectory: @unchecked Sendable {
    let http: LocalHTTPServer
    private let slowGate = DispatchSemaphore(value: 0)
    let stations: [String]
    private let answered = LockedValue<[(name: String, at: Date)]>([])

    /// The queries answered with `stations` (after the delay), and when, in order.
    var answers: [(name: String, at: Date)] { answered.get() }
    /// The names searched for, in the order the requests came.
    var searched: [String] { http.requests(path: "/json/stations/search").compactMap { $0.query["name"] } }

    var url: String { http.baseURL.absoluteString }

    /// `stations`: the JSON objects (as text) of the normal answer, in order.
    init(stations: [String], delay: TimeInterval = 0) throws {
        self.stations = stations
        http = try LocalHTTPServer.start()
        let answer = "[" + stations.joined(separator: ",") + "]"
        http.setHandler { [slowGate, answered] request in
            guard request.headers["user-agent"]?.hasPrefix("oton/") == true else {
                return .json(#"{"error": "send a descriptive User-Agent"}"#, status: 403)
            }
            if request.path == "/json/stations/search" {
                guard let name = request.query["name"], request.query["hidebroken"] == "true" else {
                    return .json(#"{"error": "name and hidebroken expected"}"#, status: 400)
                }
                switch name {
                case "nothing": return .json("[]")
                case "broken": return .text("internal error", status: 500)
                case "garbage": return .html("<html>maintenance</html>")
                case "bomb": return .json("[" + String(repeating: " ", count: 5 << 20) + "]")
                case "slow":
                    _ = slowGate.wait(timeout: .now() + 20)
                    return .json("[]")
                case "huge":
                    let one = #"{"stationuuid":"00000000-0000-0000-0000-000000000000","name":"Same","url":"http://127.0.0.1:9/x","lastcheckok":1}"#
                    return .json("[" + Array(repeating: one, count: 20_000).joined(separator: ",") + "]")
                default:
                    if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                    answered.mutate { $0.append((name, Date())) }
                    return .json(answer)
                }
            }
            if request.path.hasPrefix("/json/url/") {
                let uuid = String(request.path.dropFirst("/json/url/".count))
                guard answer.contains(#""\#(uuid)""#) else { return .json(#"{"ok": "false", "message": "url not found"}"#, status: 404) }
                return .json(#"{"ok": "true", "message": "retrieved station url", "stationuuid": "\#(uuid)", "name": "", "url": ""}"#)
            }
            return nil
        }
    }

    /// Lets a held "slow" answer go.
    func release() { slowGate.signal() }

    func stop() {
        release()
        http.stop()
    }
}
