import Foundation

/// Turns the command's STATION|URL argument into a station: a name from
/// plugins.json, a URL, or a local file. No argument means the default station.
public enum StationResolver {
    public struct Unknown: Error, CustomStringConvertible {
        public let argument: String?
        public let known: [String]
        public var description: String {
            guard let argument else { return "plugins.json names no stations; pass a URL or add one under \"stations\"" }
            return "no station named \"\(argument)\" (known: \(known.isEmpty ? "none" : known.joined(separator: ", "))); pass a name, an http(s):// URL or a file"
        }
    }

    public static func resolve(_ argument: String?, in config: OtonConfig) throws(Unknown) -> Station {
        guard let argument else {
            guard let station = config.defaultStation else { throw Unknown(argument: nil, known: []) }
            return station
        }
        if let station = config.station(named: argument) { return station }
        if let url = URL(string: argument), let scheme = url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme) {
            // A configured station with this URL keeps its name and status API.
            if let station = config.stations.first(where: { $0.url == argument }) { return station }
            return Station(name: url.host ?? url.lastPathComponent, url: argument)
        }
        if FileManager.default.fileExists(atPath: argument) {
            let path = URL(fileURLWithPath: argument).standardizedFileURL.path
            return Station(name: (path as NSString).lastPathComponent, url: path)
        }
        throw Unknown(argument: argument, known: config.stations.map(\.name))
    }
}
