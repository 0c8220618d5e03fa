import Dispatch
import Foundation
import OtonHTTP
import OtonSupport

/// Fetches a station's status API (plugins.json's status_url, or a provider rule's URL) with a
/// cache-busting parameter, over libcurl with the limits every untrusted body
/// gets: 5 s to connect, 10 s in all, at most 5 redirects, http(s) only, TLS
/// verified, and a 1 MiB cap counted while reading (after decompression, so a
/// gzip bomb stops at the cap). Polls run one at a time on a private queue: a
/// stalling server delays the next answer, it never piles up transfers.
public final class StationStatusPoller: Sendable {
    public let statusURL: URL
    public let streamURL: URL?
    /// The catalogue rule that reads the answer; nil when the catalogue lacks the status_url's format.
    public let rule: NowPlayingRule?
    public let placeholders: [String: String]
    /// A status_url the user named: a lone Icecast source is used even under another mount name.
    public let loneItem: Bool
    public let maxBytes: Int
    private let client: CappedHTTPClient
    private let queue = DispatchQueue(label: "oton.station-status")

    /// plugins.json's `status_url`: read by the catalogue's rule for its format (radio.co or Icecast).
    public init(
        statusURL: URL, streamURL: URL?, limits: CappedHTTPClient.Limits = .init(),
        maxBytes: Int = StationStatusParser.defaultMaxBytes, userAgent: String = OtonVersion.userAgent,
        catalogue: NowPlayingCatalogue = .installed
    ) {
        self.statusURL = statusURL
        self.streamURL = streamURL
        self.maxBytes = maxBytes
        let rule = catalogue.rule(named: StationStatusFormat(statusURL: statusURL).ruleName)
        self.rule = rule
        var placeholders = streamURL.flatMap { rule?.placeholders(for: $0) } ?? [:]
        placeholders["path"] = streamURL.map { $0.path.isEmpty ? "/" : $0.path }
        self.placeholders = placeholders
        loneItem = true
        client = CappedHTTPClient(limits: limits, userAgent: userAgent)
    }

    /// A provider rule of the catalogue for a stream it matched (`placeholders` from
    /// ``NowPlayingRule/placeholders(for:)``); nil when the filled URL is not one.
    public init?(
        rule: NowPlayingRule, placeholders: [String: String], streamURL: URL, limits: CappedHTTPClient.Limits = .init(),
        maxBytes: Int = StationStatusParser.defaultMaxBytes, userAgent: String = OtonVersion.userAgent
    ) {
        guard let url = URL(string: NowPlayingRule.fill(rule.url, placeholders)), url.host != nil else { return nil }
        statusURL = url
        self.streamURL = streamURL
        self.rule = rule
        self.placeholders = placeholders
        loneItem = false
        self.maxBytes = maxBytes
        client = CappedHTTPClient(limits: limits, userAgent: userAgent)
    }

    /// Polls once; `completion` runs on the poller's queue with the status or
    /// why there is none. `isCancelled` is polled during the transfer and ends it.
    public func poll(
        isCancelled: @escaping @Sendable () -> Bool = { false },
        completion: @escaping @Sendable (Result<StationStatus, StationStatusPollError>) -> Void
    ) {
        queue.async { [self] in
            guard !isCancelled() else { return }
            completion(fetch(isCancelled: isCancelled))
        }
    }

    /// One synchronous poll (on the calling thread).
    public func fetch(isCancelled: @escaping @Sendable () -> Bool = { false }) -> Result<StationStatus, StationStatusPollError> {
        let url = StationStatusRequest.url(base: statusURL, now: Date())
        let response: CappedHTTPClient.Response
        do {
            response = try client.get(url.absoluteString, maxBytes: maxBytes, isCancelled: isCancelled)
        } catch {
            return .failure(.transfer(error))
        }
        guard let rule else { return .failure(.unparseable("no catalogue rule for \(statusURL.absoluteString)")) }
        do {
            return .success(
                try NowPlayingReader.read(response.body, rule: rule, placeholders: placeholders, loneItem: loneItem, maxBytes: maxBytes))
        } catch {
            return .failure(.unparseable("\(error)"))
        }
    }
}

public enum StationStatusPollError: Error, Sendable, CustomStringConvertible {
    case transfer(CappedHTTPClient.Failure)
    case unparseable(String)

    public var description: String {
        switch self {
        case let .transfer(failure): "\(failure)"
        case let .unparseable(reason): "unexpected body: \(reason)"
        }
    }
}
