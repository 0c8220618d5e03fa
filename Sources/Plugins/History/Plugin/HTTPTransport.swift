import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HistoryLogic

/// Synchronous HTTP POSTs over URLSession (libcurl underneath), for the
/// submission worker's own thread. `cancel()` ends a request under way at
/// once, so shutting down never waits for the network.
final class HTTPTransport: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let session: URLSession
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
        session = URLSession(configuration: configuration)
    }

    func post(_ url: String, headers: [String: String], body: Data) -> Result<HTTPAnswer, Failure> {
        guard let target = URL(string: url), target.scheme == "http" || target.scheme == "https" else {
            return .failure(Failure(description: "\(url) is not an http(s) URL"))
        }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("Oton/\(HistoryPlugin.version)", forHTTPHeaderField: "User-Agent")
        request.httpBody = body

        let box = AnswerBox()
        let done = DispatchSemaphore(value: 0)
        // Checked and created under the lock, so cancel() cannot slip in between.
        lock.lock()
        if cancelled { lock.unlock(); return .failure(Failure(description: "cancelled")) }
        let task = session.dataTask(with: request) { data, response, error in
            if let http = response as? HTTPURLResponse, error == nil {
                var headers: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
                }
                box.set(.success(HTTPAnswer(status: http.statusCode, headers: headers, body: Array((data ?? Data()).prefix(1 << 20)))))
            } else {
                // The message names the failure, never the request (which may carry a token).
                box.set(.failure(Failure(description: (error as NSError?)?.localizedDescription ?? "no HTTP response")))
            }
            done.signal()
        }
        self.task = task
        lock.unlock()
        task.resume()
        // The session's own timeout ends the task; this bound is only a safety net.
        if done.wait(timeout: .now() + timeout + 5) == .timedOut {
            task.cancel()
            _ = done.wait(timeout: .now() + 1)
        }
        lock.lock(); self.task = nil; lock.unlock()
        return box.get() ?? .failure(Failure(description: "timed out after \(Int(timeout)) s"))
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

private final class AnswerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<HTTPAnswer, HTTPTransport.Failure>?

    func set(_ result: Result<HTTPAnswer, HTTPTransport.Failure>) {
        lock.lock(); if value == nil { value = result }; lock.unlock()
    }

    func get() -> Result<HTTPAnswer, HTTPTransport.Failure>? {
        lock.lock(); defer { lock.unlock() }
        return value
    }
}
