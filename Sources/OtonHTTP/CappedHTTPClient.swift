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
        /// From the end of the request (its body sent) to the answer's first byte; nil: only the total.
        public var firstByteMilliseconds: Int?
        /// From the end of the request to the end of the answer (a server that trickles it).
        public var answerMilliseconds: Int?

        public init(
            totalMilliseconds: Int = 10_000, connectMilliseconds: Int = 5000, maxRedirects: Int = 5,
            firstByteMilliseconds: Int? = nil, answerMilliseconds: Int? = nil
        ) {
            self.totalMilliseconds = max(1, totalMilliseconds)
            self.connectMilliseconds = max(1, min(connectMilliseconds, self.totalMilliseconds))
            self.maxRedirects = max(0, maxRedirects)
            self.firstByteMilliseconds = firstByteMilliseconds.map { max(1, $0) }
            self.answerMilliseconds = answerMilliseconds.map { max(1, $0) }
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
        /// The host name does not resolve (no network, no DNS, or no such name), in curl's words.
        case hostNotFound(String)
        /// Everything else libcurl reports (refused connection, TLS), in curl's words.
        case transport(String)

        public var description: String {
            switch self {
            case let .tooLarge(limit): "the body is larger than \(limit) bytes"
            case let .http(status): "HTTP \(status)"
            case let .tooManyRedirects(limit): "more than \(limit) redirects"
            case let .timedOut(milliseconds): "no complete answer within \(Double(milliseconds) / 1000) s"
            case .cancelled: "cancelled"
            case let .unsupportedScheme(detail): "only http and https are fetched (\(detail))"
            case let .hostNotFound(detail), let .transport(detail): detail
            }
        }
    }

    public struct Response: Sendable {
        public var body: Data
        public var contentType: String?
        /// Where the body came from after redirects (for resolving relative links).
        public var effectiveURL: String
        public var status: Int
        /// The last answer's headers, names lower-cased (a repeated header keeps its last value).
        public var headers: [String: String]
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
    /// `userAgent` replaces the client's own for this request (a station that names its own).
    public func get(
        _ url: String, maxBytes: Int, userAgent: String? = nil,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(Failure) -> Response {
        let limits = limits
        let response = try perform(url, maxBytes: maxBytes, isCancelled: isCancelled) { curl in
            oton_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
            oton_curl_set_long(curl, CURLOPT_MAXREDIRS, limits.maxRedirects)
            if let userAgent { oton_curl_set_string(curl, CURLOPT_USERAGENT, userAgent) }
        }
        guard (200..<300).contains(response.status) else { throw .http(status: response.status) }
        return response
    }

    /// A POST of `body` with `headers`, whose answer comes back whatever its status. Redirects are
    /// not followed: a 3xx comes back with its `location` header for the caller to judge, because
    /// a request that carries a credential must not follow a server anywhere it points.
    public func post(
        _ url: String, headers: [String: String], body: [UInt8], maxBytes: Int,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(Failure) -> Response {
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { list = curl_slist_append(list, "\(name): \(value)") }
        list = curl_slist_append(list, "Expect:")  // no 100-continue round trip
        defer { curl_slist_free_all(list) }
        return try perform(url, maxBytes: maxBytes, isCancelled: isCancelled) { curl in
            oton_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0)
            oton_curl_set_long(curl, CURLOPT_POST, 1)
            oton_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
            oton_curl_set_off(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { raw in
                // Copied by curl at once (COPYPOSTFIELDS), so the bytes need not outlive this call.
                if let base = raw.baseAddress { oton_curl_set_pointer(curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base)) }
            }
        }
    }

    /// How a request to an S3-compatible store is signed: libcurl's AWS SigV4 (`CURLOPT_AWS_SIGV4`,
    /// "aws:amz:REGION:s3") with the access key and secret as the user and password. The secret goes
    /// to libcurl only; ``description`` never shows it.
    public struct AWSSigning: Sendable, CustomStringConvertible {
        public var region: String
        public var service: String
        public var accessKey: String
        public var secretKey: String
        /// A temporary credential's token (x-amz-security-token, signed with the other x-amz headers).
        public var sessionToken: String?

        public init(region: String, service: String = "s3", accessKey: String, secretKey: String, sessionToken: String? = nil) {
            self.region = region
            self.service = service
            self.accessKey = accessKey
            self.secretKey = secretKey
            self.sessionToken = sessionToken
        }

        public var description: String { "AWS SigV4 (\(region), \(service), key \(accessKey.prefix(4))…)" }
    }

    /// A PUT of the file at `path` (read while sending, never whole in memory), signed with
    /// `signing`, whose answer comes back whatever its status (the caller judges it). No redirect
    /// is followed (a signed request goes nowhere else). A transfer slower than `lowSpeedBytes`
    /// a second for `lowSpeedSeconds` ends as timed out, besides the client's total limit.
    public func put(
        _ url: String, file path: String, headers: [String: String], signing: AWSSigning?,
        lowSpeedBytes: Int = 1024, lowSpeedSeconds: Int = 60,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(Failure) -> Response {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .transport("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .transport("cannot read \(path): \(String(cString: strerror(errno)))") }
        let source = FileSource(fd: fd)
        let context = Unmanaged.passRetained(source)
        defer { context.release() }
        return try signed(url, headers: headers, signing: signing, uploadBytes: Int64(info.st_size), isCancelled: isCancelled) { curl in
            oton_curl_set_long(curl, CURLOPT_UPLOAD, 1)
            oton_curl_set_off(curl, CURLOPT_INFILESIZE_LARGE, curl_off_t(info.st_size))
            oton_curl_set_read_function(curl) { buffer, size, count, user in
                guard let buffer, let user else { return Int(CURL_READFUNC_ABORT) }
                let got = read(Unmanaged<FileSource>.fromOpaque(user).takeUnretainedValue().fd, buffer, size * count)
                return got < 0 ? Int(CURL_READFUNC_ABORT) : got
            }
            oton_curl_set_pointer(curl, CURLOPT_READDATA, context.toOpaque())
            oton_curl_set_long(curl, CURLOPT_LOW_SPEED_LIMIT, lowSpeedBytes)
            oton_curl_set_long(curl, CURLOPT_LOW_SPEED_TIME, lowSpeedSeconds)
        }
    }

    /// A HEAD, signed with `signing`; the answer whatever its status (its headers: content-length, etag).
    public func head(
        _ url: String, headers: [String: String] = [:], signing: AWSSigning?,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(Failure) -> Response {
        // No body comes, and the object's announced size is no reason to refuse the answer: no cap.
        try signed(url, headers: headers, signing: signing, maxBytes: Int(Int64.max), isCancelled: isCancelled) { curl in
            oton_curl_set_long(curl, CURLOPT_NOBODY, 1)
        }
    }

    private func signed(
        _ url: String, headers: [String: String], signing: AWSSigning?, maxBytes: Int = 1 << 20, uploadBytes: Int64 = 0,
        isCancelled: @escaping @Sendable () -> Bool,
        configure: (UnsafeMutableRawPointer) -> Void
    ) throws(Failure) -> Response {
        var all = headers
        if let signing {
            // S3 wants the payload's hash signed; a streamed file is sent as UNSIGNED-PAYLOAD (libcurl signs the header's value).
            all["x-amz-content-sha256"] = all["x-amz-content-sha256"] ?? "UNSIGNED-PAYLOAD"
            if let token = signing.sessionToken { all["x-amz-security-token"] = token }
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { list = curl_slist_append(list, "\(name): \(value)") }
        defer { curl_slist_free_all(list) }
        return try perform(url, maxBytes: maxBytes, uploadBytes: uploadBytes, isCancelled: isCancelled) { curl in
            oton_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0)
            oton_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
            if let signing {
                oton_curl_set_string(curl, CURLOPT_AWS_SIGV4, "aws:amz:\(signing.region):\(signing.service)")
                oton_curl_set_string(curl, CURLOPT_USERNAME, signing.accessKey)
                oton_curl_set_string(curl, CURLOPT_PASSWORD, signing.secretKey)
            }
            configure(curl)
        }
    }

    /// One transfer with every limit set; `configure` adds what the method needs.
    /// `uploadBytes`: the request's body, after which the first-byte and answer limits count.
    private func perform(
        _ url: String, maxBytes: Int, uploadBytes: Int64 = 0, isCancelled: @escaping @Sendable () -> Bool,
        configure: (UnsafeMutableRawPointer) -> Void
    ) throws(Failure) -> Response {
        guard let curl = curl_easy_init() else { throw .transport("libcurl could not start a transfer") }
        defer { curl_easy_cleanup(curl) }
        let sink = Sink(
            limit: max(0, maxBytes), firstByteSeconds: limits.firstByteMilliseconds.map { Double($0) / 1000 },
            answerSeconds: limits.answerMilliseconds.map { Double($0) / 1000 }, uploadBytes: uploadBytes, isCancelled: isCancelled)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let limits = limits
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            oton_curl_set_string(curl, CURLOPT_URL, url)
            oton_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            CurlSecurity.apply(to: curl)
            oton_curl_set_long(curl, CURLOPT_TIMEOUT_MS, limits.totalMilliseconds)
            oton_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, limits.connectMilliseconds)
            // Every request of a transfer (each redirect) on a connection of its own: a server that
            // answers and closes without `Connection: close` otherwise resets the next redirect's
            // request on the kept-alive connection (seen: a redirect loop named as a reset 1 time in 4).
            oton_curl_set_long(curl, CURLOPT_FORBID_REUSE, 1)
            oton_curl_set_off(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(max(0, maxBytes)))
            oton_curl_set_string(curl, CURLOPT_USERAGENT, userAgent)
            oton_curl_set_string(curl, CURLOPT_ACCEPT_ENCODING, "")  // whatever curl decodes; the cap counts decoded bytes
            oton_curl_set_write_function(curl) { data, size, count, user in
                guard let user else { return 0 }
                let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                let (bytes, overflow) = size.multipliedReportingOverflow(by: count)
                guard let data, !overflow, bytes <= sink.limit - sink.body.count else {
                    sink.overflowed = true
                    return 0  // makes curl stop with CURLE_WRITE_ERROR
                }
                sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: bytes)
                return bytes
            }
            oton_curl_set_pointer(curl, CURLOPT_WRITEDATA, context.toOpaque())
            oton_curl_set_header_function(curl) { data, size, count, user in
                guard let user, let data else { return 0 }
                let bytes = size * count  // curl bounds one header line (CURL_MAX_HTTP_HEADER)
                Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                    .header(UnsafeRawBufferPointer(start: data, count: bytes))
                return bytes
            }
            oton_curl_set_pointer(curl, CURLOPT_HEADERDATA, context.toOpaque())
            oton_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
            oton_curl_set_progress_function(curl) { user, _, _, _, uploaded in
                guard let user else { return 1 }
                let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                return sink.isCancelled() || sink.tooLate(requestSent: uploaded >= sink.uploadBytes) ? 1 : 0
            }
            oton_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context.toOpaque())
            configure(curl)
            return curl_easy_perform(curl)
        }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED { throw .tooLarge(limit: maxBytes) }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let late = sink.late { throw .transport(late) }
            switch code {
            case CURLE_ABORTED_BY_CALLBACK: throw .cancelled
            // The low-speed limit ends a transfer with the same code, long before the total: curl says which.
            case CURLE_OPERATION_TIMEDOUT where detail.contains("too slow"): throw .transport(detail)
            case CURLE_TOO_MANY_REDIRECTS: throw .tooManyRedirects(limit: limits.maxRedirects)
            case CURLE_OPERATION_TIMEDOUT: throw .timedOut(milliseconds: limits.totalMilliseconds)
            case CURLE_UNSUPPORTED_PROTOCOL: throw .unsupportedScheme(detail.isEmpty ? url : detail)
            case CURLE_COULDNT_RESOLVE_HOST: throw .hostNotFound(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
            default: throw .transport(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
            }
        }
        return Response(
            body: sink.body,
            contentType: oton_curl_content_type(curl).map { String(cString: $0) },
            effectiveURL: oton_curl_effective_url(curl).map { String(cString: $0) } ?? url,
            status: oton_curl_response_code(curl), headers: sink.headers)
    }
}

/// The file a PUT reads from, reached from curl's read callback on the calling thread only.
private final class FileSource {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
}

/// The transfer's state, reached from curl's callbacks on the calling thread only.
private final class Sink {
    let limit: Int
    let isCancelled: @Sendable () -> Bool
    var body = Data()
    var overflowed = false
    var headers: [String: String] = [:]
    private var headerBytes = 0
    private let firstByteSeconds: Double?
    private let answerSeconds: Double?
    private var sentAt: Double?
    private var answered = false
    /// Why the transfer was ended for taking too long (the first byte or the answer), in words.
    private(set) var late: String?

    let uploadBytes: Int64

    init(
        limit: Int, firstByteSeconds: Double? = nil, answerSeconds: Double? = nil, uploadBytes: Int64 = 0,
        isCancelled: @escaping @Sendable () -> Bool
    ) {
        self.limit = limit
        self.uploadBytes = uploadBytes
        self.firstByteSeconds = firstByteSeconds
        self.answerSeconds = answerSeconds
        self.isCancelled = isCancelled
    }

    /// From curl's progress callback (about once a second at least): true ends the transfer.
    func tooLate(requestSent: Bool) -> Bool {
        guard requestSent else { return false }
        let now = Self.now()
        guard let sentAt else {
            self.sentAt = now
            return false
        }
        if !answered, let firstByteSeconds, now - sentAt > firstByteSeconds {
            late = "no answer within \(Self.seconds(firstByteSeconds)) s of the request"
        } else if let answerSeconds, now - sentAt > answerSeconds {
            late = "the answer took longer than \(Self.seconds(answerSeconds)) s"
        }
        return late != nil
    }

    private static func seconds(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// One header line; a status line (a redirect's next answer) starts the set afresh. At most
    /// 256 KiB of headers are kept, so a server cannot grow the dictionary without bound.
    func header(_ line: UnsafeRawBufferPointer) {
        answered = true
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            headers = [:]
            headerBytes = 0
            return
        }
        headerBytes += line.count
        guard headerBytes <= 256 << 10, let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        headers[name] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
