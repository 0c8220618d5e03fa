import Foundation
import HistoryLogic
import OtonHTTP

/// Synchronous HTTP POSTs over libcurl (OtonHTTP's capped client), for the submission worker's
/// own thread. `cancel()` ends a request under way within about a second (curl's progress
/// callback), so shutting down never waits for the network.
///
/// Redirects are never followed by the client (it would re-send the credential to wherever the
/// service points): every 3xx comes back here and RedirectPolicy decides. Same origin: the same
/// request again, at most 5 times. Another origin: an error naming only the target's origin.
///
/// Threading: `post` blocks its caller; `cancel` from any thread.
final class HTTPTransport: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The largest answer read; a service's answers are a few hundred bytes.
    static let bodyLimit = 1 << 20

    private let client: CappedHTTPClient
    private let lock = NSLock()
    private var cancelled = false

    init(timeout: Double) {
        let milliseconds = Int((timeout * 1000).rounded())
        client = CappedHTTPClient(
            limits: .init(totalMilliseconds: milliseconds, connectMilliseconds: min(milliseconds, 10_000), maxRedirects: 0),
            userAgent: "Oton/\(HistoryPlugin.version)")
    }

    func post(_ url: String, headers: [String: String], body: Data) -> Result<HTTPAnswer, Failure> {
        guard var target = URL(string: url), RedirectPolicy.origin(of: target) != nil else {
            return .failure(Failure(description: "\(url) is not an http(s) URL"))
        }
        var redirects = 0
        while true {
            let result = exchange(with: target, headers: headers, body: body)
            guard case let .success(answer) = result,
                let decision = RedirectPolicy.decide(
                    status: answer.status, location: answer.headers["location"],
                    from: target, redirectsSoFar: redirects)
            else {
                return result
            }
            switch decision {
            case let .follow(next):
                target = next
                redirects += 1
            case let .refuse(reason):
                return .failure(Failure(description: reason))
            }
        }
    }

    /// One request and its answer, a redirect included.
    private func exchange(with target: URL, headers: [String: String], body: Data) -> Result<HTTPAnswer, Failure> {
        if isCancelled { return .failure(Failure(description: "cancelled")) }
        do {
            let response = try client.post(
                target.absoluteString, headers: headers, body: Array(body), maxBytes: Self.bodyLimit,
                isCancelled: { [weak self] in self?.isCancelled ?? true })
            return .success(HTTPAnswer(status: response.status, headers: response.headers, body: Array(response.body)))
        } catch {
            // The message names the failure (curl's words), never the request, which may carry a token.
            return .failure(Failure(description: error.description))
        }
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// Cancels the request under way and every later one.
    func cancel() {
        lock.withLock { cancelled = true }
    }
}
