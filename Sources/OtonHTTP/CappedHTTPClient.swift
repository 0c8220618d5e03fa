import CCurl
import Foundation

/// A GET over libcurl with every limit set, for bodies that come from
/// untrusted servers (station status APIs, artwork, playlists): total and
/// connect timeouts, at most 5 redirects, http(s) only (redirects too), TLS
/// verified, a body cap enforced while reading (on the decoded bytes, so a
/// compression bomb stops at the cap), and cancellation through the progress
/// callback.
///
/// Threading: `get` blocks the calling thread for at most the total timeout;
/// one client may be used from several threads at once (each call has its own
/// curl handle). Never call it on a GStreamer streaming thread or the player's queue.
public final class CappedHTTPClient: Sendable {
    public struct Limits: Sendable {
        /// The whole transfer, redirects included.
        public var totalMilliseconds: Int
        public var connectMilliseconds: Int
        public var maxRedirects: Int

        public init(totalMilliseconds: Int = 10_000, connectMilliseconds: Int = 5000, maxRedirects: Int = 5) {
            self.totalMilliseconds = max(1, totalMilliseconds)
            self.connectMilliseconds = max(1, min(connectMilliseconds, self.totalMilliseconds))
            self.maxRedirects = max(0, maxRedirects)
        }
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The body grew past the cap (counted while reading, after decompression).
        case tooLarge(limit: Int)
        /// A non-2xx answer.
        case http(status: Int)
        case tooManyRedirects(limit: Int)
        case timedOut(milliseconds: Int)
        case cancelled
        /// The URL or a redirect used a scheme other than http(s).
        case unsupportedScheme(String)
        /// Everything else libcurl reports (DNS, refused connection, TLS), in curl's words.
        case transport(String)

        public var description: String {
            switch self {
            case let .tooLarge(limit): "the body is larger than \(limit) bytes"
            case let .http(status): "HTTP \(status)"
            case let .tooManyRedirects(limit): "more than \(limit) redirects"
            case let .timedOut(milliseconds): "no complete answer within \(Double(milliseconds) / 1000) s"
            case .cancelled: "cancelled"
            case let .unsupportedScheme(detail): "only http and https are fetched (\(detail))"
            case let .transport(detail): detail
            }
        }
    }

    public struct Response: Sendable {
        public var body: Data
        public var contentType: String?
        /// Where the body came from after redirects (for resolving relative links).
        public var effectiveURL: String
        public var status: Int
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    public let limits: Limits
    public let userAgent: String

    public init(limits: Limits = Limits(), userAgent: String) {
        _ = Self.globalInit
        self.limits = limits
        self.userAgent = userAgent
    }

    /// `isCancelled` is polled during the transfer (about once a second at least) and ends it early.
    public func get(_ url: String, maxBytes: Int, isCancelled: @escaping @Sendable () -> Bool = { false }) throws(Failure) -> Response {
        guard let curl = curl_easy_init() else { throw .transport("libcurl could not start a transfer") }
        defer { curl_easy_cleanup(curl) }
        let sink = Sink(limit: max(0, maxBytes), isCancelled: isCancelled)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let limits = limits
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            oton_curl_set_string(curl, CURLOPT_URL, url)
            oton_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            oton_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            oton_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            oton_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
            oton_curl_set_long(curl, CURLOPT_MAXREDIRS, limits.maxRedirects)
            oton_curl_set_long(curl, CURLOPT_TIMEOUT_MS, limits.totalMilliseconds)
            oton_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, limits.connectMilliseconds)
            oton_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
            oton_curl_set_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
            oton_curl_set_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
            oton_curl_set_off(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(max(0, maxBytes)))
            oton_curl_set_string(curl, CURLOPT_USERAGENT, userAgent)
            oton_curl_set_string(curl, CURLOPT_ACCEPT_ENCODING, "") // whatever curl decodes; the cap counts decoded bytes
            oton_curl_set_write_function(curl) { data, size, count, user in
                guard let user else { return 0 }
                let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                let (bytes, overflow) = size.multipliedReportingOverflow(by: count)
                guard let data, !overflow, bytes <= sink.limit - sink.body.count else {
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
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED { throw .tooLarge(limit: maxBytes) }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            switch code {
            case CURLE_ABORTED_BY_CALLBACK: throw .cancelled
            case CURLE_TOO_MANY_REDIRECTS: throw .tooManyRedirects(limit: limits.maxRedirects)
            case CURLE_OPERATION_TIMEDOUT: throw .timedOut(milliseconds: limits.totalMilliseconds)
            case CURLE_UNSUPPORTED_PROTOCOL: throw .unsupportedScheme(detail.isEmpty ? url : detail)
            default: throw .transport(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
            }
        }
        let status = oton_curl_response_code(curl)
        guard (200 ..< 300).contains(status) else { throw .http(status: status) }
        return Response(body: sink.body,
                        contentType: oton_curl_content_type(curl).map { String(cString: $0) },
                        effectiveURL: oton_curl_effective_url(curl).map { String(cString: $0) } ?? url,
                        status: status)
    }
}

/// The transfer's state, reached from curl's callbacks on the calling thread only.
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
