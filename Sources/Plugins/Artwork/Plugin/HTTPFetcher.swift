import CCurl
import Foundation

/// GET over libcurl with every limit set: total and connect timeouts, at most
/// 5 redirects, http(s) only, TLS verified (curl's default, stated anyway), a
/// body size cap, and cancellation (destroy) through the progress callback.
final class HTTPFetcher: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Response {
        var body: Data
        var contentType: String?
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private let timeoutMilliseconds: Int

    init(timeoutMilliseconds: Int) {
        _ = Self.globalInit
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// `isCancelled` is polled during the transfer (about once a second at least) and ends it early.
    func get(_ url: String, maxBytes: Int, isCancelled: @escaping @Sendable () -> Bool) throws(Failure) -> Response {
        guard let curl = curl_easy_init() else { throw Failure(description: "libcurl could not start a transfer") }
        defer { curl_easy_cleanup(curl) }
        let sink = Sink(limit: maxBytes, isCancelled: isCancelled)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            oton_curl_set_string(curl, CURLOPT_URL, url)
            oton_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            oton_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            oton_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            oton_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
            oton_curl_set_long(curl, CURLOPT_MAXREDIRS, 5)
            oton_curl_set_long(curl, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
            oton_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMilliseconds, 5000))
            oton_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
            oton_curl_set_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
            oton_curl_set_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
            oton_curl_set_off(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes))
            oton_curl_set_string(curl, CURLOPT_USERAGENT, "oton-artwork/0.1")
            oton_curl_set_string(curl, CURLOPT_ACCEPT_ENCODING, "") // whatever curl can decode
            oton_curl_set_write_function(curl) { data, size, count, user in
                guard let user else { return 0 }
                let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                let bytes = size * count
                guard let data, sink.body.count + bytes <= sink.limit else {
                    sink.overflowed = true
                    return 0 // makes curl stop with CURLE_WRITE_ERROR
                }
                sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: bytes)
                return bytes
            }
            oton_curl_set_pointer(curl, CURLOPT_WRITEDATA, context.toOpaque())
            oton_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
            oton_curl_set_progress_function(curl) { user, _, _, _, _ in
                guard let user else { return 1 }
                return Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().isCancelled() ? 1 : 0
            }
            oton_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context.toOpaque())
            return curl_easy_perform(curl)
        }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            throw Failure(description: "the body is larger than \(maxBytes) bytes")
        }
        guard code == CURLE_OK else {
            if code == CURLE_ABORTED_BY_CALLBACK { throw Failure(description: "cancelled") }
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw Failure(description: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        }
        let status = oton_curl_response_code(curl)
        guard (200 ..< 300).contains(status) else { throw Failure(description: "HTTP \(status)") }
        return Response(body: sink.body, contentType: oton_curl_content_type(curl).map { String(cString: $0) })
    }
}

private final class Sink {
    let limit: Int
    let isCancelled: @Sendable () -> Bool
    var body = Data()
    var overflowed = false

    init(limit: Int, isCancelled: @escaping @Sendable () -> Bool) {
        self.limit = limit
        self.isCancelled = isCancelled
    }
}
