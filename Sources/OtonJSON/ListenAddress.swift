/// Where a plugin's server listens, as its config's `listen` says: "127.0.0.1:8765", or
/// "0.0.0.0:PORT" for the house network. IPv4 only; port 0 picks a free one (for tests). Only what
/// the config names is bound. The web remote and the metrics plugin read it the same way.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// `example` is what the error offers as the right form (the plugin's default).
    public static func parse(_ text: String, example: String = "127.0.0.1:8765") throws(Invalid) -> ListenAddress {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else {
            throw Invalid(description: "config.listen must be ADDRESS:PORT, e.g. \"\(example)\" (got \"\(text)\")")
        }
        let octets = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }) else {
            throw Invalid(description: "config.listen must use an IPv4 address such as 127.0.0.1 or 0.0.0.0 (got \"\(parts[0])\")")
        }
        return ListenAddress(host: String(parts[0]), port: port)
    }

    /// True when only this machine can connect.
    public var isLoopback: Bool { host.hasPrefix("127.") }

    /// True for 0.0.0.0: every interface, so every host on the network can connect.
    public var isEveryInterface: Bool { host == "0.0.0.0" }

    public var description: String { "\(host):\(port)" }

    /// Whether a request's Host header names this listener — the defence against DNS rebinding (a
    /// page of evil.com whose name now resolves to 127.0.0.1 is same-origin with itself, so only
    /// the Host header tells): 127.0.0.1, localhost, [::1] or the address listened on, with its
    /// port; on 0.0.0.0 any IPv4 address with the port. The web remote and the metrics listener ask it.
    public func isOwnHost(_ hostHeader: String?) -> Bool {
        guard let hostHeader, let colon = hostHeader.lastIndex(of: ":"), hostHeader[hostHeader.index(after: colon)...] == String(port) else {
            return false
        }
        let name = hostHeader[..<colon].lowercased()
        if name == "127.0.0.1" || name == "localhost" || name == "[::1]" || name == host { return true }
        guard isEveryInterface else { return false }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }
}
