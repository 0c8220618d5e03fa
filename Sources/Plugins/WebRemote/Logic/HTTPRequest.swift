/// One HTTP request as libmicrohttpd parsed it. Header names are lower-cased; the query is
/// already percent-decoded.
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

    /// A refusal to answer before the request reaches the gate.
    public struct Refusal: Error, Sendable, Equatable {
        public let status: Int
        public let message: String
    }

    /// Builds the request from the head's parts in the order they came. The rules libmicrohttpd
    /// leaves to us: one Host, one token header and one Content-Length (a second could make two
    /// readers see two requests), no chunked uploads, and a Content-Length within `maximumBodyBytes`.
    public static func assemble(
        method: String, path: String, headers: [(String, String)], query: [(String, String)],
        maximumBodyBytes: Int
    ) throws(Refusal) -> HTTPRequest {
        var named: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            if named[key] != nil, key == "content-length" || key == "host" || key == RequestGate.tokenHeader {
                throw Refusal(status: 400, message: "duplicate \(key) header")
            }
            named[key] = value
        }
        if named["transfer-encoding"] != nil {
            throw Refusal(status: 411, message: "chunked request bodies are not accepted; send Content-Length")
        }
        if let text = named["content-length"] {
            guard let length = Int(text), length >= 0 else { throw Refusal(status: 400, message: "Content-Length is not a number") }
            guard length <= maximumBodyBytes else { throw Refusal(status: 413, message: "request body larger than \(maximumBodyBytes) bytes") }
        }
        var arguments: [String: String] = [:]
        for (key, value) in query where arguments[key] == nil { arguments[key] = value }
        return HTTPRequest(method: method, path: path, query: arguments, headers: named)
    }
}
