import Synchronization

/// The process's figures: every registered instance's StationMeter, plus the build. One per
/// process in the plugin (the library is loaded once and serves every session); tests make their own.
///
/// Instances of the same station (two sessions of one station) are one station to a scraper:
/// their counters add up, the state gauge counts the sessions in each state, and the age of the
/// last byte is the youngest. So every series is unique, whatever the sessions.
public final class MetricsRegistry: Sendable {
    public struct Registration: Sendable, Hashable {
        fileprivate let number: UInt64
    }

    private struct Contents {
        var next: UInt64 = 1
        var meters: [UInt64: StationMeter] = [:]
        var hostVersion: String?
    }

    public static let pluginVersion = "0.1.0"

    private let contents = Mutex(Contents())

    public init() {}

    /// Adds an instance's meter; `hostVersion` (the host table's) names the build once known.
    public func register(_ meter: StationMeter, hostVersion: String?) -> Registration {
        contents.withLock {
            let number = $0.next
            $0.next += 1
            $0.meters[number] = meter
            if $0.hostVersion == nil { $0.hostVersion = hostVersion }
            return Registration(number: number)
        }
    }

    /// Removes the meter: its station disappears from the next scrape unless another session has it.
    public func unregister(_ registration: Registration) {
        _ = contents.withLock { $0.meters.removeValue(forKey: registration.number) }
    }

    /// Registered instances now.
    public var count: Int { contents.withLock { $0.meters.count } }

    /// The exposition text: build, sessions, per-station figures (stations sorted by name), then the
    /// process's own figures when given. `now`: CLOCK_MONOTONIC in nanoseconds.
    public func render(now: Int64, process: ProcessFigures?) -> String {
        let (meters, hostVersion) = contents.withLock { (Array($0.meters.values), $0.hostVersion) }
        let stations = Self.group(meters.map(\.snapshot))
        var out = Exposition()
        out.family(
            "oton_build_info", .gauge, help: "The running oton: version is the host's, plugin_version the metrics plugin's.",
            [.init([("version", hostVersion ?? "unknown"), ("plugin_version", Self.pluginVersion)], 1)])
        out.family("oton_sessions", .gauge, help: "Sessions (one station each) with the metrics plugin enabled.", [.init([], Double(meters.count))])
        out.family(
            "oton_station_state", .gauge, help: "Sessions of the station in each playback state (0 or 1 with one session per station).",
            stations.flatMap { name, list in
                StationFigures.states.map { state in
                    Exposition.Sample([("station", name), ("state", state)], Double(list.filter { $0.state == state }.count))
                }
            })
        func perStation(_ value: (StationFigures) -> UInt64) -> [Exposition.Sample] {
            stations.map { name, list in .init([("station", name)], Double(list.reduce(UInt64(0)) { $0 &+ value($1) })) }
        }
        out.family(
            "oton_station_received_bytes_total", .counter, help: "Bytes of the encoded stream received, ICY metadata removed.",
            perStation(\.receivedBytes))
        out.family(
            "oton_station_tracks_total", .counter, help: "Tracks started (a new track sequence that is not a break).",
            perStation(\.tracksStarted))
        out.family(
            "oton_station_reconnects_total", .counter, help: "New connections to the stream after the first.",
            perStation(\.reconnects))
        out.family(
            "oton_station_errors_total", .counter, help: "Transitions into the error state (a reconnect with a delay follows unless retries ran out).",
            perStation(\.errors))
        out.family(
            "oton_station_last_byte_age_seconds", .gauge, help: "Seconds since the last stream byte (since the session began when none came yet).",
            stations.map { name, list in
                .init([("station", name)], list.map { $0.secondsSinceLastByte(now: now) }.min() ?? 0)
            })
        func latest(_ value: (StationFigures) -> Double?) -> [Exposition.Sample] {
            stations.compactMap { name, list in list.compactMap(value).first.map { .init([("station", name)], $0) } }
        }
        out.family(
            "oton_station_level_dbfs", .gauge,
            help: "The level of the last sampled second of the stream (RMS, dBFS; -Inf for digital silence), from oton record's air watch.",
            latest(\.levelDBFS))
        out.family(
            "oton_station_silence_seconds", .gauge, help: "Seconds the station has been below the silence threshold (0 when it is not).",
            latest(\.silenceSeconds))
        out.family(
            "oton_station_title_age_seconds", .gauge, help: "Seconds the current title has been on.",
            latest(\.titleAgeSeconds))
        let alertCounts = stations.flatMap { name, list in
            Dictionary(list.flatMap(\.alerts), uniquingKeysWith: +).sorted { $0.key < $1.key }.map { (name, $0.key, $0.value) }
        }
        out.family(
            "oton_station_alerts_total", .counter, help: "Alerts of the air watch by kind (dead-air, dead-air-over, title-stall, format-change).",
            alertCounts.map { .init([("station", $0.0), ("kind", $0.1)], Double($0.2)) })
        let drops = stations.flatMap { name, list in Self.dropTotals(list).map { (name, $0.key, $0.value) } }
        out.family(
            "oton_plugin_dropped_events_total", .counter, help: "Events a plugin's full queue lost, as the bus announced them.",
            drops.map { .init([("station", $0.0), ("plugin", $0.1)], Double($0.2.events)) })
        out.family(
            "oton_plugin_dropped_bytes_total", .counter, help: "Media bytes a plugin's full queue lost, as the bus announced them.",
            drops.map { .init([("station", $0.0), ("plugin", $0.1)], Double($0.2.bytes)) })
        if let process { process.write(into: &out) }
        return out.text
    }

    /// Every registered station's figures (sessions of one station apart), for the health checks.
    public var figures: [StationFigures] {
        contents.withLock { Array($0.meters.values) }.map(\.snapshot)
    }

    /// Figures grouped by station label, sorted by it.
    static func group(_ figures: [StationFigures]) -> [(String, [StationFigures])] {
        Dictionary(grouping: figures, by: \.station).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Drop totals of the sessions of one station added up per plugin, sorted by plugin id.
    static func dropTotals(_ list: [StationFigures]) -> [(key: String, value: StationFigures.DropTotals)] {
        var sums: [String: StationFigures.DropTotals] = [:]
        for figures in list {
            for (plugin, totals) in figures.drops {
                sums[plugin, default: .init()].events &+= totals.events
                sums[plugin, default: .init()].bytes &+= totals.bytes
            }
        }
        return sums.sorted { $0.key < $1.key }
    }
}
