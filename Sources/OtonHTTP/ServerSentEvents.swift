import CCurl
import Foundation

/// Follows a Server-Sent Events stream (a now-playing push channel: AzuraCast's, Zeno's) over libcurl
/// with the security of every transfer (``CurlSecurity``): `connectMilliseconds` to connect, at most 3
/// redirects, and a stream that sends nothing for `idleSeconds` (no event, no comment, no ping) ends.
/// Each event's `data:` lines, joined by "\n", go to `onEvent`; an event (or a line) longer than
/// `maxEventBytes` ends the stream with ``CappedHTTPClient/Failure/tooLarge(limit:)``, so memory stays
/// bounded whatever the server sends.
///
/// Threading: `follow` blocks the calling thread until the stream ends, fails or `isCancelled` (polled
/// about once a second) says so; `onEvent` runs on that thread.
public struct ServerSentEvents: Sendable {
    public var connectMilliseconds = 5000
    public var idleSeconds = 90
    public var maxEventBytes = 64 * 1024
    public let userAgent: String

    public init(userAgent: String) {
        self.userAgent = userAgent
    }

    private final class Reader {
        let limit: Int
        let isCancelled: @Sendable () -> Bool
        let onEvent: (String) -> Void
        var line: [UInt8] = []
        var data: [String] = []
        var dataBytes = 0
        var overflowed = false

        init(limit: Int, isCancelled: @escaping @Sendable () -> Bool, onEvent: @escaping (String) -> Void) {
            self.limit = limit
            self.isCancelled = isCancelled
            self.onEvent = onEvent
        }

        /// False when a line or an event is over the cap.
        func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
            for byte in bytes {
                if byte == UInt8(ascii: "\n") {
                    if !finishLine() { return false }
                } else if byte != UInt8(ascii: "\r") {
                    line.append(byte)
                    if line.count > limit { return false }
                }
            }
            return true
        }

        private func finishLine() -> Bool {
            defer { line.removeAll(keepingCapacity: true) }
            if line.isEmpty {
                if !data.isEmpty { onEvent(data.joined(separator: "\n")) }
                data.removeAll()
                dataBytes = 0
                return true
            }
            guard line.starts(with: Array("data:".utf8)) else { return true }  // event:, id:, retry:, comments
            var value = line.dropFirst(5)
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            dataBytes += value.count
            guard dataBytes <= limit else { return false }
            data.append(String(decoding: value, as: UTF8.self))
            return true
        }
    }

    public func follow(
        _ url: String, isCancelled: @escaping @Sendable () -> Bool, onEvent: @escaping (String) -> Void
    ) throws(CappedHTTPClient.Failure) {
        _ = CappedHTTPClient(userAgent: userAgent)  // curl_global_init, once
        guard let curl = curl_easy_init() else { throw .transport("libcurl could not start a transfer") }
        defer { curl_easy_cleanup(curl) }
        let reader = Reader(limit: maxEventBytes, isCancelled: isCancelled, onEvent: onEvent)
        let context = Unmanaged.passRetained(reader)
        defer { context.release() }
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Accept: text/event-stream")
        headers = curl_slist_append(headers, "Cache-Control: no-cache")
        defer { curl_slist_free_all(headers) }
        oton_curl_set_string(curl, CURLOPT_URL, url)
        CurlSecurity.apply(to: curl)
        oton_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, connectMilliseconds)
        oton_curl_set_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
        oton_curl_set_long(curl, CURLOPT_LOW_SPEED_TIME, idleSeconds)
        oton_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
        oton_curl_set_long(curl, CURLOPT_MAXREDIRS, 3)
        oton_curl_set_long(curl, CURLOPT_FAILONERROR, 1)
        oton_curl_set_string(curl, CURLOPT_USERAGENT, userAgent)
        oton_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
        oton_curl_set_write_function(curl) { data, size, count, user in
            guard let user, let data else { return 0 }
            let reader = Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue()
            let bytes = size * count
            guard reader.take(UnsafeRawBufferPointer(start: data, count: bytes)) else {
                reader.overflowed = true
                return 0
            }
            return bytes
        }
        oton_curl_set_pointer(curl, CURLOPT_WRITEDATA, context.toOpaque())
        oton_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
        oton_curl_set_progress_function(curl) { user, _, _, _, _ in
            guard let user else { return 1 }
            return Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue().isCancelled() ? 1 : 0
        }
        oton_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context.toOpaque())
        let code = curl_easy_perform(curl)
        if reader.overflowed { throw .tooLarge(limit: maxEventBytes) }
        switch code {
        case CURLE_OK: return
        case CURLE_ABORTED_BY_CALLBACK: throw .cancelled
        case CURLE_HTTP_RETURNED_ERROR: throw .http(status: oton_curl_response_code(curl))
        default: throw .transport(String(cString: curl_easy_strerror(code)))
        }
    }
}
