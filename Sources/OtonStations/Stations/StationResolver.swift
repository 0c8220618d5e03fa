import Foundation
import OtonEvents
import OtonMedia
import OtonSupport

/// The one reader of a station argument, for the command line (`oton play|record STATION|URL|FILE`) and
/// for a running oton (`oton ctl station NAME|NUMBER|URL`, plugins' switch requests): a name (without
/// case), a URL, a local file (command line), or a number of the list (running oton). A name comes
/// first: a station called "1984" is found by its name, and its number still finds it too.
/// No argument on the command line means the default station.
///
/// What cannot play is refused here, before any connection, so it is a usage
/// error (exit 2) and never retried: a scheme oton does not speak (`ftp:`,
/// `javascript:` …), a `file://` URL or a path that names no file.
public enum StationResolver {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not a station name, URL or file; `known` lists the configured names.
        case unknown(argument: String?, known: [String])
        case unsupportedScheme(argument: String, scheme: String)
        case noSuchFile(path: String)
        /// A number past the list a running oton switches between.
        case noNumber(Int, count: Int)
        /// A running oton switches to names, numbers and http(s) URLs only.
        case notAStationOfTheList(argument: String, known: [String])

        /// In the user's language (these are printed on the terminal, never sent as events).
        public var description: String {
            switch self {
            case let .unknown(argument, known):
                guard let argument else { return tr("plugins.json names no stations; pass a URL or add one under \"stations\"") }
                return tr(
                    "no station named \"{name}\" (known: {known}); pass a name, an http(s):// URL or a file",
                    ["name": argument, "known": known.isEmpty ? tr("none") : known.joined(separator: ", ")])
            case let .unsupportedScheme(argument, scheme):
                return tr(
                    "unsupported address scheme \"{scheme}:\" in {address}; oton plays http:// and https:// streams and local files",
                    ["scheme": scheme, "address": argument])
            case let .noSuchFile(path):
                return tr("no such file: {path}", ["path": path])
            case let .noNumber(number, count):
                return tr(
                    "no station number {number}; there are {count} (`oton ctl stations` lists them)",
                    ["number": String(number), "count": String(count)])
            case let .notAStationOfTheList(argument, known):
                return tr(
                    "no station named \"{name}\" (known: {known}); give a name, a number or an http(s) URL",
                    ["name": argument, "known": known.isEmpty ? tr("none") : known.joined(separator: ", ")])
            }
        }
    }

    public static let playableSchemes: Set<String> = ["http", "https", "file"]

    /// The command line's argument: plugins.json's stations, its default station when there is no argument.
    public static func resolve(_ argument: String?, in config: OtonConfig) throws(Failure) -> Station {
        guard let argument else {
            guard let station = config.defaultStation else { throw .unknown(argument: nil, known: []) }
            return station
        }
        if let station = config.station(named: argument) { return station }
        return try resolve(argument, among: config.stations, runningOton: false)
    }

    /// `argument` among `stations`. `runningOton`: a switch in a running oton, which takes a number of
    /// the list too and http(s) URLs only (no files); otherwise the command line's rules.
    public static func resolve(_ argument: String, among stations: [Station], runningOton: Bool) throws(Failure) -> Station {
        let text = argument.trimmingCharacters(in: .whitespaces)
        let known = stations.map(\.name)
        if let station = stations.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) { return station }
        if runningOton, let number = Int(text) {
            guard stations.indices.contains(number - 1) else { throw .noNumber(number, count: stations.count) }
            return stations[number - 1]
        }
        if let scheme = scheme(of: text) {
            guard playableSchemes.contains(scheme) else { throw .unsupportedScheme(argument: text, scheme: scheme) }
            if runningOton, scheme == "file" { throw .notAStationOfTheList(argument: text, known: known) }
            // A configured station with this URL keeps its name and status API.
            if let station = stations.first(where: { $0.url == text }) { return station }
            guard let url = URL(string: text), !(url.host ?? "").isEmpty || scheme == "file" else {
                throw runningOton ? .notAStationOfTheList(argument: text, known: known) : .unknown(argument: text, known: known)
            }
            if scheme == "file" {
                let path = PipelineDescription(url: text, headless: true).filePath ?? url.path
                guard isRegularFileOrFIFO(path) else { throw .noSuchFile(path: path) }
            }
            return Station(name: url.host ?? url.lastPathComponent, url: text)
        }
        if runningOton { throw .notAStationOfTheList(argument: text, known: known) }
        if FileManager.default.fileExists(atPath: argument) {
            let path = URL(fileURLWithPath: argument).standardizedFileURL.path
            return Station(name: (path as NSString).lastPathComponent, url: path)
        }
        if looksLikePath(argument) { throw .noSuchFile(path: argument) }
        throw .unknown(argument: argument, known: known)
    }

    /// The lower-cased scheme when the argument starts like a URL (`letter (letter|digit|+|-|.)* ":"`
    /// and no space before the colon), else nil: "Oton FM" and "Radio: Hits" are names.
    package static func scheme(of argument: String) -> String? {
        guard let colon = argument.firstIndex(of: ":") else { return nil }
        let candidate = argument[..<colon]
        guard let first = candidate.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            candidate.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        // "C:" or a one-letter name is not a scheme worth naming; neither is a bare "name:" with nothing after it.
        guard candidate.count > 1, argument.index(after: colon) < argument.endIndex else { return nil }
        return candidate.lowercased()
    }

    /// A path a user meant as a file: absolute, relative with a slash, or `~`.
    package static func looksLikePath(_ argument: String) -> Bool {
        argument.hasPrefix("/") || argument.hasPrefix("./") || argument.hasPrefix("../") || argument.hasPrefix("~") || argument.contains("/")
    }

    private static func isRegularFileOrFIFO(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFREG || type == S_IFIFO
    }
}
