import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HistoryLogic

/// Synchronous HTTP POSTs over URLSession (libcurl underneath), for the
/// submission worker's own thread. `cancel()` ends a request under way at
/// once, so shutting down never waits for the network.
///
/// Redirects are never followed by URLSession itself (it would re-send the
/// credential to wherever the service points): every 3xx comes back here and
/// RedirectPolicy decides. Same origin: the same request again, at most 5
/// times. Another origin: an error naming only the target's origin.
final class HTTPTransport: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let session: URLSession
    private let exchanges = ExchangeDelegate()
    private let timeout: Double
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    init(timeout: Double) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        // Delegate-based tasks: only then does URLSession ask before following a redirect.
        session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
    }

    func post(_ url: String, headers: [String: String], body: Data) -> Result<HTTPAnswer, Failure> {
        guard var target = URL(string: url), RedirectPolicy.origin(of: target) != nil else {
            return .failure(Failure(description: "\(url) is not an http(s) URL"))
        }
        var redirects = 0
        while true {
            let result = exchange(with: target, headers: headers, body: body)
            guard case let .success(answer) = result,
                  let decision = RedirectPolicy.decide(status: answer.status, location: answer.headers["location"],
                                                       from: target, redirectsSoFar: redirects) else {
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
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("Oton/\(HistoryPlugin.version)", forHTTPHeaderField: "User-Agent")
        request.httpBody = body

        let exchange = Exchange()
        // Checked and created under the lock, so cancel() cannot slip in between.
        lock.lock()
        if cancelled { lock.unlock(); return .failure(Failure(description: "cancelled")) }
        let task = session.dataTask(with: request)
        exchanges.register(exchange, for: task)
        self.task = task
        lock.unlock()
        task.resume()
        // The session's own timeout ends the task; this bound is only a safety net.
        if exchange.done.wait(timeout: .now() + timeout + 5) == .timedOut {
            task.cancel()
            _ = exchange.done.wait(timeout: .now() + 1)
        }
        exchanges.forget(task)
        lock.lock(); self.task = nil; lock.unlock()
        return exchange.result ?? .failure(Failure(description: "timed out after \(Int(timeout)) s"))
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Cancels the request under way and every later one.
    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}

/// What one task received; filled by the delegate, read by the waiting caller.
private final class Exchange: @unchecked Sendable {
    static let bodyLimit = 1 << 20
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var body = Data()
    private var outcome: Result<HTTPAnswer, HTTPTransport.Failure>?

    func received(_ data: Data) {
        lock.lock()
        if body.count < Self.bodyLimit { body.append(data.prefix(Self.bodyLimit - body.count)) }
        lock.unlock()
    }

    func complete(response: URLResponse?, error: Error?) {
        lock.lock()
        if outcome == nil {
            if let http = response as? HTTPURLResponse, error == nil {
                var headers: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
                }
                outcome = .success(HTTPAnswer(status: http.statusCode, headers: headers, body: Array(body)))
            } else {
                // The message names the failure, never the request (which may carry a token).
                outcome = .failure(HTTPTransport.Failure(description: (error as NSError?)?.localizedDescription ?? "no HTTP response"))
            }
        }
        lock.unlock()
        done.signal()
    }

    var result: Result<HTTPAnswer, HTTPTransport.Failure>? {
        lock.lock(); defer { lock.unlock() }
        return outcome
    }
}

/// The session's delegate: collects each task's body and answer, and turns every redirect down
/// (the 3xx answer itself completes the task, for HTTPTransport to judge).
private final class ExchangeDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        lock.lock(); exchanges[task.taskIdentifier] = exchange; lock.unlock()
    }

    func forget(_ task: URLSessionTask) {
        lock.lock(); exchanges[task.taskIdentifier] = nil; lock.unlock()
    }

    private func exchange(for task: URLSessionTask) -> Exchange? {
        lock.lock(); defer { lock.unlock() }
        return exchanges[task.taskIdentifier]
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        exchange(for: task)?.complete(response: task.response, error: error)
    }
}
