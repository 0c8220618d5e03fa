import Foundation

/// Turns the command's STATION|URL argument into a station: a name from
/// plugins.json, a URL, or a local file. No argument means the default station.
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

        /// In the user's language (these are printed on the terminal, never sent as events).
        public var description: String {
            switch self {
            case let .unknown(argument, known):
                guard let argument else { return tr("plugins.json names no stations; pass a URL or add one under \"stations\"") }
                return tr("no station named \"{name}\" (known: {known}); pass a name, an http(s):// URL or a file",
                          ["name": argument, "known": known.isEmpty ? tr("none") : known.joined(separator: ", ")])
            case let .unsupportedScheme(argument, scheme):
                return tr("unsupported address scheme \"{scheme}:\" in {address}; oton plays http:// and https:// streams and local files",
                          ["scheme": scheme, "address": argument])
            case let .noSuchFile(path):
                return tr("no such file: {path}", ["path": path])
            }
        }
    }

    public static let playableSchemes: Set<String> = ["http", "https", "file"]

    public static func resolve(_ argument: String?, in config: OtonConfig) throws(Failure) -> Station {
        guard let argument else {
            guard let station = config.defaultStation else { throw .unknown(argument: nil, known: []) }
            return station
        }
        if let station = config.station(named: argument) { return station }
        if let scheme = scheme(of: argument) {
            guard playableSchemes.contains(scheme) else { throw .unsupportedScheme(argument: argument, scheme: scheme) }
            // A configured station with this URL keeps its name and status API.
            if let station = config.stations.first(where: { $0.url == argument }) { return station }
            guard let url = URL(string: argument) else { throw .unknown(argument: argument, known: config.stations.map(\.name)) }
            if scheme == "file" {
                let path = PipelineDescription(url: argument, headless: true).filePath ?? url.path
                guard isRegularFileOrFIFO(path) else { throw .noSuchFile(path: path) }
            }
            return Station(name: url.host ?? url.lastPathComponent, url: argument)
        }
        if FileManager.default.fileExists(atPath: argument) {
            let path = URL(fileURLWithPath: argument).standardizedFileURL.path
            return Station(name: (path as NSString).lastPathComponent, url: path)
        }
        if looksLikePath(argument) { throw .noSuchFile(path: argument) }
        throw .unknown(argument: argument, known: config.stations.map(\.name))
    }

    /// The lower-cased scheme when the argument starts like a URL (`letter (letter|digit|+|-|.)* ":"`
    /// and no space before the colon), else nil: "Oton FM" and "Radio: Hits" are names.
    static func scheme(of argument: String) -> String? {
        guard let colon = argument.firstIndex(of: ":") else { return nil }
        let candidate = argument[..<colon]
        guard let first = candidate.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              candidate.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0" ... "9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        // "C:" or a one-letter name is not a scheme worth naming; neither is a bare "name:" with nothing after it.
        guard candidate.count > 1, argument.index(after: colon) < argument.endIndex else { return nil }
        return candidate.lowercased()
    }

    /// A path a user meant as a file: absolute, relative with a slash, or `~`.
    static func looksLikePath(_ argument: String) -> Bool {
        argument.hasPrefix("/") || argument.hasPrefix("./") || argument.hasPrefix("../") || argument.hasPrefix("~") || argument.contains("/")
    }

    private static func isRegularFileOrFIFO(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFREG || type == S_IFIFO
    }
}
