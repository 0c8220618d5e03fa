import Foundation
import OtonHTTP
import OtonJSON
import OtonSupport

/// Radio Browser's JSON API (the community directory Shortwave and many apps use):
/// `/json/stations/search` to find stations and `/json/url/<uuid>` to count a play.
/// Answers are untrusted: capped in size and time, stations without a usable name
/// or URL are skipped (and counted), text is cleaned (see ``DirectoryStation``).
///
/// Threading: every call blocks for at most the timeout; use it off the player's queue.
public struct StationDirectoryClient: Sendable {
    /// Radio Browser asks clients for a descriptive User-Agent.
    public static let userAgent = "\(OtonVersion.userAgent) (Linux internet-radio player)"
    /// A larger answer is refused (500 stations of a real answer are about 600 KB).
    public static let maxResponseBytes = 4 << 20

    /// The server's base URL without a trailing slash, e.g. `https://de1.api.radio-browser.info`.
    public let server: String
    private let http: CappedHTTPClient

    /// `server` must be an http(s) URL; `timeoutSeconds` bounds each call.
    public init(server: String, timeoutSeconds: Double = 10) throws(DirectoryError) {
        var base = server.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        guard let scheme = URL(string: base)?.scheme?.lowercased(), scheme == "http" || scheme == "https",
            URL(string: base)?.host?.isEmpty == false
        else { throw .badServer(server) }
        self.server = base
        let milliseconds = Int(min(max(timeoutSeconds, 0.1), 600) * 1000)
        http = CappedHTTPClient(
            limits: .init(totalMilliseconds: milliseconds, connectMilliseconds: min(milliseconds, 5000)),
            userAgent: Self.userAgent)
    }

    public struct SearchResult: Sendable {
        public var stations: [DirectoryStation]
        /// Elements of the answer that were not a usable station (no name, no http(s) URL, not an object).
        public var skipped: Int
    }

    public func search(_ query: DirectorySearchQuery) throws(DirectoryError) -> SearchResult {
        let body = try get(query.path)
        let root: JSONValue
        do {
            root = try JSONValue.parse(body, maxBytes: Self.maxResponseBytes)
        } catch {
            throw .unreadable(server: server, reason: "not JSON (\(error))")
        }
        guard case let .array(items) = root else {
            throw .unreadable(server: server, reason: "expected a JSON array of stations")
        }
        var stations: [DirectoryStation] = []
        var skipped = 0
        for item in items {
            guard stations.count < query.limit else { break }
            if let station = DirectoryStation(json: item) { stations.append(station) } else { skipped += 1 }
        }
        return SearchResult(stations: stations, skipped: skipped)
    }

    /// Counts a play of the station, as the API asks clients to when they play one.
    public func click(uuid: String) throws(DirectoryError) {
        guard let uuid = DirectoryStation.validUUID(uuid) else { return }
        _ = try get("/json/url/" + uuid)
    }

    private func get(_ path: String) throws(DirectoryError) -> Data {
        do {
            return try http.get(server + path, maxBytes: Self.maxResponseBytes).body
        } catch {
            throw .unreachable(server: server, reason: error)
        }
    }
}
