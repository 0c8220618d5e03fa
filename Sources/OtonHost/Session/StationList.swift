import Foundation

/// The stations a listener switches between: plugins.json's, in order, and first the one oton was
/// started with when it is not among them (a URL or file from the command line). A station switched
/// to that is not among them either (`oton ctl station URL`, MPRIS OpenUri) stands right after the
/// listed station it was left from, so `prev` goes back there, also when it cannot be played.
/// `next` and `prev` wrap around; numbers count from 1, as `oton ctl stations` and the keys 1–9 show them.
public struct StationList: Equatable, Sendable {
    public let stations: [Station]

    public init(configured: [Station], started: Station) {
        stations = configured.contains { $0.url == started.url } ? configured : [started] + configured
    }

    /// The station played now when it is not listed, and the listed station it was switched to from.
    public struct Unlisted: Equatable, Sendable {
        public var station: Station
        public var leftFrom: Station

        public init(station: Station, leftFrom: Station) {
            self.station = station
            self.leftFrom = leftFrom
        }
    }

    /// This list with `unlisted` placed right after the station it was left from (nothing changes
    /// when it is listed after all, or when that station is no longer listed: a reload removed it).
    public func placing(_ unlisted: Unlisted?) -> StationList {
        guard let unlisted, !stations.contains(where: { $0.url == unlisted.station.url }),
              let anchor = stations.firstIndex(where: { $0.url == unlisted.leftFrom.url }) else { return self }
        var placed = stations
        placed.insert(unlisted.station, at: anchor + 1)
        return StationList(placed)
    }

    private init(_ stations: [Station]) {
        self.stations = stations
    }

    /// Why an argument names no station.
    public struct NotFound: Error, CustomStringConvertible {
        public let description: String
    }

    /// A name (case-insensitive), a number (1-based), or an http(s) URL (a stream or a playlist,
    /// played as a station named by its host). A name comes first: a station called "1984" is
    /// found by its name, and its number still finds it too.
    public func find(_ argument: String) throws(NotFound) -> Station {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let station = stations.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) { return station }
        if let number = Int(text) {
            guard stations.indices.contains(number - 1) else {
                throw NotFound(description: "no station number \(number); there are \(stations.count) (`oton ctl stations` lists them)")
            }
            return stations[number - 1]
        }
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
                throw NotFound(description: "\(text) is not a URL oton can open")
            }
            return stations.first { $0.url == text } ?? Station(name: host, url: text)
        }
        throw NotFound(description: "no station named \"\(text)\" (known: \(stations.map(\.name).joined(separator: ", "))); give a name, a number or an http(s) URL")
    }

    /// The station `step` places after `current` (negative: before), wrapping; a station not in the list
    /// counts as standing before the first (see ``placing(_:)`` for one that has its place).
    public func station(after current: Station, step: Int) -> Station? {
        guard !stations.isEmpty else { return nil }
        let index = stations.firstIndex { $0.url == current.url } ?? (step > 0 ? -1 : 0)
        let count = stations.count
        return stations[((index + step) % count + count) % count]
    }

    /// More than one station to switch between (MPRIS CanGoNext / CanGoPrevious).
    public var canSwitch: Bool { stations.count > 1 }

    /// "1  Oton FM  http://…" per line, the current one marked with ▶.
    public func listing(current: Station) -> String {
        stations.enumerated().map { index, station in
            "\(station.url == current.url ? "▶" : " ") \(index + 1)  \(station.name)  \(station.url)"
        }.joined(separator: "\n")
    }
}
