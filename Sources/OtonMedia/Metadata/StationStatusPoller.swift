import Dispatch
import Foundation
import OtonHTTP
import OtonSupport

/// Fetches a station's status API (radio.co or Icecast status-json.xsl) with a
/// cache-busting parameter, over libcurl with the limits every untrusted body
/// gets: 5 s to connect, 10 s in all, at most 5 redirects, http(s) only, TLS
/// verified, and a 1 MiB cap counted while reading (after decompression, so a
/// gzip bomb stops at the cap). Polls run one at a time on a private queue: a
/// stalling server delays the next answer, it never piles up transfers.
public final class StationStatusPoller: Sendable {
    public let statusURL: URL
    public let streamURL: URL?
    public let format: StationStatusFormat
    public let maxBytes: Int
    private let client: CappedHTTPClient
    private let queue = DispatchQueue(label: "oton.station-status")

    public init(
        statusURL: URL, streamURL: URL?, limits: CappedHTTPClient.Limits = .init(),
        maxBytes: Int = StationStatusParser.defaultMaxBytes, userAgent: String = OtonVersion.userAgent
    ) {
        self.statusURL = statusURL
        self.streamURL = streamURL
        self.maxBytes = maxBytes
        format = statusURL.path.hasSuffix("status-json.xsl") ? .icecast : .radioCo
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
        do {
            return .success(try StationStatusParser.parse(response.body, format: format, streamURL: streamURL, maxBytes: maxBytes))
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
