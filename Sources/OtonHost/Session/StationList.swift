import Foundation

/// The stations that `next` and `prev` go through, in order, and the one lookup of
/// "NAME|NUMBER|URL" at run time (`oton ctl station`, the status line's digits, MPRIS OpenUri,
/// a plugin's switch request).
///
/// Order: the stations of plugins.json as written. A station played that is not among them
/// (a URL on the command line, `oton ctl station URL`, MPRIS OpenUri) is an extra entry,
/// inserted once right after the station that was playing when it came: `prev` from it goes
/// back to where the listener was, `next` goes on through the list. Extras last as long as the
/// process. Numbers are 1-based places in this order. A value type; the player owns the live one.
public struct StationList: Equatable, Sendable {
    public private(set) var stations: [Station]

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The argument is a number, but no station has it.
        case noNumber(Int, count: Int)
        /// Not a name, number or playable address (see ``StationResolver``).
        case unresolved(StationResolver.Failure)

        public var description: String {
            switch self {
            case let .noNumber(number, count):
                "no station number \(number): the list has \(count == 1 ? "1 station" : "\(count) stations") (1–\(count)); `oton ctl stations` lists them"
            case let .unresolved(failure):
                failure.description
            }
        }
    }

    public init(_ stations: [Station]) {
        self.stations = []
        for station in stations where index(of: station) == nil { self.stations.append(station) }
    }

    /// The configured stations, with `playing` added as an extra when it is not one of them.
    public init(config: OtonConfig, playing: Station) {
        self.init(config.stations)
        insert(playing, after: nil)
    }

    public var count: Int { stations.count }

    /// Where `station` stands (matched by URL: a station is where it streams from), or nil.
    public func index(of station: Station) -> Int? {
        stations.firstIndex { $0.url == station.url }
    }

    /// Adds `station` as an extra right after `current` (at the end when `current` is not listed),
    /// unless it is listed already. Returns its index.
    @discardableResult
    public mutating func insert(_ station: Station, after current: Station?) -> Int {
        if let index = index(of: station) { return index }
        let place = current.flatMap(index(of:)).map { $0 + 1 } ?? stations.endIndex
        stations.insert(station, at: place)
        return place
    }

    /// The station `offset` places from `current` (1 = next, -1 = previous), wrapping around.
    /// From a station not in the list, next is the first and previous the last. Nil for an empty list.
    public func station(from current: Station, offset: Int) -> Station? {
        guard !stations.isEmpty else { return nil }
        guard let here = index(of: current) else { return offset >= 0 ? stations.first : stations.last }
        let count = stations.count
        return stations[((here + offset) % count + count) % count]
    }

    /// The station an argument names: a name in the list (any case), its 1-based number, or an
    /// http(s) URL (a playlist URL too), a `file://` URL or a file, as `oton play` takes them.
    /// A URL of a listed station is that station, with its name and status API.
    public func lookup(_ argument: String) throws(Failure) -> Station {
        let trimmed = argument.trimmingCharacters(in: .whitespaces)
        if let named = stations.first(where: { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }) { return named }
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) {
            guard let number = Int(trimmed), number >= 1, number <= stations.count else {
                throw .noNumber(Int(trimmed.prefix(9)) ?? Int.max, count: stations.count)
            }
            return stations[number - 1]
        }
        do {
            return try StationResolver.resolve(trimmed, in: OtonConfig(stations: stations))
        } catch {
            throw .unresolved(error)
        }
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
