import Foundation
import OtonEvents

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
            let anchor = stations.firstIndex(where: { $0.url == unlisted.leftFrom.url })
        else { return self }
        var placed = stations
        placed.insert(unlisted.station, at: anchor + 1)
        return StationList(placed)
    }

    private init(_ stations: [Station]) {
        self.stations = stations
    }

    /// A name (case-insensitive), a number (1-based), or an http(s) URL (a stream or a playlist,
    /// played as a station named by its host): ``StationResolver``'s rules for a running oton.
    public func find(_ argument: String) throws(StationResolver.Failure) -> Station {
        try StationResolver.resolve(argument, among: stations, runningOton: true)
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
