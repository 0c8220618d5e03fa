import Foundation

/// The stations a listener switches between: plugins.json's, in order, and first the one oton was
/// started with when it is not among them (a URL or file from the command line). `next` and `prev`
/// wrap around; numbers count from 1, as `oton ctl stations` and the keys 1–9 show them.
public struct StationList: Equatable, Sendable {
    public let stations: [Station]

    public init(configured: [Station], started: Station) {
        stations = configured.contains { $0.url == started.url } ? configured : [started] + configured
    }

    /// Why an argument names no station.
    public struct NotFound: Error, CustomStringConvertible {
        public let description: String
    }

    /// A number (1-based), a name (case-insensitive), or an http(s) URL (a stream or a playlist,
    /// played as a station named by its host).
    public func find(_ argument: String) throws(NotFound) -> Station {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let number = Int(text) {
            guard stations.indices.contains(number - 1) else {
                throw NotFound(description: "no station number \(number); there are \(stations.count) (`oton ctl stations` lists them)")
            }
            return stations[number - 1]
        }
        if let station = stations.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) { return station }
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
    /// (a URL switched to) counts as standing before the first.
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
