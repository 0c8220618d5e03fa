import OtonJSON

/// `/healthz` and `/readyz` of the metrics listener, from every registered station's figures. Pure.
/// - healthy: at least `share` of the stations receive (playing, a byte within `stallSeconds`);
/// - ready: every station has been tried (it played or failed at least once).
/// Each answer is 200 or 503 with a JSON body that says why.
public struct HealthVerdict: Sendable, Equatable {
    public var status: Int
    public var body: String

    public struct Rules: Sendable, Equatable {
        /// The share of stations that must receive (0 … 1).
        public var share = 0.5
        /// A station whose last byte is older than this does not receive.
        public var stallSeconds = 30.0

        public init(share: Double = 0.5, stallSeconds: Double = 30) {
            self.share = share
            self.stallSeconds = stallSeconds
        }
    }

    public static func health(_ stations: [StationFigures], rules: Rules, now: Int64) -> HealthVerdict {
        let receiving = stations.filter { receives($0, rules: rules, now: now) }.count
        let needed = Int((rules.share * Double(stations.count)).rounded(.up))
        let healthy = !stations.isEmpty && receiving >= max(needed, 1)
        var fields: [String: JSONValue] = [
            "status": .string(healthy ? "ok" : "unhealthy"), "stations": .int(stations.count),
            "receiving": .int(receiving), "needed": .int(max(needed, 1)),
        ]
        if !healthy {
            fields["reason"] = .string(
                stations.isEmpty
                    ? "no station is recorded"
                    : "\(receiving) of \(stations.count) stations receive; at least \(max(needed, 1)) must (\(Int(rules.share * 100))%)")
        }
        return HealthVerdict(status: healthy ? 200 : 503, body: JSONValue.object(fields).jsonText + "\n")
    }

    public static func readiness(_ stations: [StationFigures]) -> HealthVerdict {
        let untried = stations.filter { !$0.hasBeenTried }.count
        let ready = !stations.isEmpty && untried == 0
        var fields: [String: JSONValue] = [
            "status": .string(ready ? "ready" : "not-ready"), "stations": .int(stations.count),
            "untried": .int(untried),
        ]
        if !ready {
            fields["reason"] = .string(stations.isEmpty ? "no station is recorded" : "\(untried) of \(stations.count) stations not tried yet")
        }
        return HealthVerdict(status: ready ? 200 : 503, body: JSONValue.object(fields).jsonText + "\n")
    }

    static func receives(_ station: StationFigures, rules: Rules, now: Int64) -> Bool {
        station.state == "playing" && station.hasReceivedBytes && station.secondsSinceLastByte(now: now) <= rules.stallSeconds
    }
}
