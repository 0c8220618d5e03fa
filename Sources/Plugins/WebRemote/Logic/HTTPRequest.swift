/// One parsed HTTP/1.1 request. Header names are lower-cased; the target is split into path and query.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public subscript(header name: String) -> String? { headers[name.lowercased()] }
}

/// A strictly bounded HTTP/1.1 request parser: the whole head must fit in `maximumHeadBytes`, a body
/// needs a Content-Length up to `maximumBodyBytes` (no chunked uploads), and anything else is refused
/// with a status to answer before closing. Pure: it sees bytes, never a socket.
public struct HTTPRequestParser: Sendable {
    public static let maximumHeadBytes = 8 * 1024
    public static let maximumBodyBytes = 4 * 1024
    public static let maximumHeaders = 64

    public enum Outcome: Sendable, Equatable {
        /// More bytes are needed.
        case incomplete
        /// A request and how many bytes of the buffer it used.
        case complete(HTTPRequest, consumed: Int)
        /// Answer `status` with `message`, then close.
        case refused(status: Int, message: String)
    }

    public init() {}

    public func parse(_ buffer: [UInt8]) -> Outcome {
        guard let headEnd = Self.find([13, 10, 13, 10], in: buffer) else {
            return buffer.count > Self.maximumHeadBytes
                ? .refused(status: 431, message: "request head larger than \(Self.maximumHeadBytes) bytes") : .incomplete
        }
        guard headEnd <= Self.maximumHeadBytes else {
            return .refused(status: 431, message: "request head larger than \(Self.maximumHeadBytes) bytes")
        }
        guard let head = String(validating: buffer[0 ..< headEnd], as: UTF8.self) else {
            return .refused(status: 400, message: "request head is not UTF-8")
        }
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0" else {
            return .refused(status: 400, message: "request line must be METHOD TARGET HTTP/1.1")
        }
        let method = String(requestLine[0])
        let target = String(requestLine[1])
        guard !method.isEmpty, method.allSatisfy({ $0.isASCII && $0.isUppercase }), target.hasPrefix("/") else {
            return .refused(status: 400, message: "request line must be METHOD /PATH HTTP/1.1")
        }
        guard lines.count <= Self.maximumHeaders else { return .refused(status: 431, message: "more than \(Self.maximumHeaders) headers") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                return .refused(status: 400, message: "malformed header line")
            }
            let name = line[..<colon].lowercased()
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                return .refused(status: 400, message: "malformed header name")
            }
            let value = line[line.index(after: colon)...].trimmingSpaces()
            if headers[name] != nil, name == "content-length" || name == "host" || name == "x-oton-token" {
                return .refused(status: 400, message: "duplicate \(name) header")
            }
            headers[name] = value
        }
        if headers["transfer-encoding"] != nil { return .refused(status: 411, message: "chunked request bodies are not accepted; send Content-Length") }
        var length = 0
        if let text = headers["content-length"] {
            guard let value = Int(text), value >= 0 else { return .refused(status: 400, message: "Content-Length is not a number") }
            guard value <= Self.maximumBodyBytes else {
                return .refused(status: 413, message: "request body larger than \(Self.maximumBodyBytes) bytes")
            }
            length = value
        }
        let bodyStart = headEnd + 4
        guard buffer.count >= bodyStart + length else { return .incomplete }
        let (path, query) = Self.split(target)
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers,
                                  body: Array(buffer[bodyStart ..< bodyStart + length]))
        return .complete(request, consumed: bodyStart + length)
    }

    static func split(_ target: String) -> (String, [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (percentDecoded(target), [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(String(parts[0]))
            if query[key] == nil { query[key] = parts.count > 1 ? percentDecoded(String(parts[1])) : "" }
        }
        return (percentDecoded(String(target[..<mark])), query)
    }

    /// %XX and + decoding; a malformed escape stays as written.
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0 ... haystack.count - needle.count where haystack[start] == needle[0] {
            if Array(haystack[start ..< start + needle.count]) == needle { return start }
        }
        return nil
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}
