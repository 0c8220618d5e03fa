import OtonJSON

/// Decides what a request may do, before anything is done: a Host header that names this remote
/// (DNS rebinding: a page of evil.com whose name now resolves to 127.0.0.1 is same-origin with
/// itself, so only the Host header tells), the token on every route, POST with the token in a
/// header for anything that changes state, and no cross-origin requests at all. Pure.
public struct RequestGate: Sendable {
    /// The header that carries the token on POST. A foreign page cannot set it without a CORS
    /// preflight, and the server grants none.
    public static let tokenHeader = "x-oton-token"

    public enum Route: Sendable, Equatable {
        case page
        case state
        case events
        case artwork
        case action
    }

    public enum Decision: Sendable, Equatable {
        case serve(Route)
        case reject(status: Int, message: String)
    }

    public let token: String
    /// Where the server listens, with the port it got.
    public let listen: ListenAddress

    public init(token: String, listen: ListenAddress) {
        self.token = token
        self.listen = listen
    }

    public func decide(_ request: HTTPRequest) -> Decision {
        guard isOwnHost(request[header: "host"]) else {
            return .reject(
                status: 403, message: "the Host header must name this remote (127.0.0.1, localhost, ::1 or the address it listens on, with port \(listen.port))"
            )
        }
        let headerToken = request[header: Self.tokenHeader]
        let presented = headerToken ?? request.query["token"]
        guard let presented, Self.constantTimeEqual(presented, token) else {
            return .reject(status: 401, message: "missing or wrong token: open the URL that `oton ctl web-remote url` prints")
        }
        if let origin = request[header: "origin"], !isSameOrigin(origin, host: request[header: "host"]) {
            return .reject(status: 403, message: "cross-origin requests are refused")
        }
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"): return .serve(.page)
        case ("GET", "/state"): return .serve(.state)
        case ("GET", "/events"): return .serve(.events)
        case ("GET", "/artwork"): return .serve(.artwork)
        case ("POST", "/action"):
            // The token must come in the header: a form or a link from another page can put it
            // in the query (if it ever learned it) but cannot add a header without our consent.
            guard let headerToken, Self.constantTimeEqual(headerToken, token) else {
                return .reject(status: 403, message: "actions need the token in the X-Oton-Token header")
            }
            return .serve(.action)
        case (_, "/"), (_, "/index.html"), (_, "/state"), (_, "/events"), (_, "/artwork"), (_, "/action"):
            return .reject(status: 405, message: "\(request.method) is not allowed on \(request.path)")
        default:
            return .reject(status: 404, message: "no such page: \(request.path)")
        }
    }

    /// 127.0.0.1, localhost, [::1] or the bound address, each with the port. Bound to 0.0.0.0, any
    /// IPv4 literal is the bound address (the LAN address a phone uses): a rebinding needs a name.
    func isOwnHost(_ host: String?) -> Bool {
        listen.isOwnHost(host)
    }

    /// The browser's Origin must name the host it asked (scheme http, same host:port).
    func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        return origin == "http://" + host
    }

    /// Compares without stopping at the first difference, so timing does not reveal a prefix.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
