import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches a station's status API (radio.co or Icecast status-json.xsl) with
/// a cache-busting parameter and a 10 s timeout, and hands back what it found.
/// The body is untrusted: anything unparseable is logged and ignored.
public final class StationStatusPoller: Sendable {
    public let statusURL: URL
    public let streamURL: URL?
    public let format: StationStatusFormat
    private let session: URLSession

    public init(statusURL: URL, streamURL: URL?, timeout: TimeInterval = 10) {
        self.statusURL = statusURL
        self.streamURL = streamURL
        format = statusURL.path.hasSuffix("status-json.xsl") ? .icecast : .radioCo
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = ["User-Agent": "oton/\(OtonVersion.current)"]
        session = URLSession(configuration: configuration)
    }

    /// Polls once; `completion` gets the status or the reason it failed (on a URLSession thread).
    public func poll(completion: @escaping @Sendable (Result<StationStatus, StationStatusPollError>) -> Void) {
        let url = StationStatusRequest.url(base: statusURL, now: Date())
        let format = format
        let streamURL = streamURL
        session.dataTask(with: url) { data, response, error in
            if let error {
                completion(.failure(.transport(error.localizedDescription)))
                return
            }
            if let http = response as? HTTPURLResponse, !(200 ..< 300).contains(http.statusCode) {
                completion(.failure(.http(http.statusCode)))
                return
            }
            do {
                completion(.success(try StationStatusParser.parse(data ?? Data(), format: format, streamURL: streamURL)))
            } catch {
                completion(.failure(.unparseable("\(error)")))
            }
        }.resume()
    }
}

public enum StationStatusPollError: Error, Sendable, CustomStringConvertible {
    case transport(String)
    case http(Int)
    case unparseable(String)

    public var description: String {
        switch self {
        case let .transport(reason): "no answer: \(reason)"
        case let .http(status): "HTTP \(status)"
        case let .unparseable(reason): "unexpected body: \(reason)"
        }
    }
}
