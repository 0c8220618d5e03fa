/// Where the server listens: "127.0.0.1:8765" (the default) or "0.0.0.0:8765" for the house network.
/// IPv4 only; the port 1–65535 (0 picks a free one, for tests).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public static let `default` = ListenAddress(host: "127.0.0.1", port: 8765)

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ text: String) throws(Invalid) -> ListenAddress {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else {
            throw Invalid(description: "config.listen must be ADDRESS:PORT, e.g. \"127.0.0.1:8765\" (got \"\(text)\")")
        }
        let octets = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }) else {
            throw Invalid(description: "config.listen must use an IPv4 address such as 127.0.0.1 or 0.0.0.0 (got \"\(parts[0])\")")
        }
        return ListenAddress(host: String(parts[0]), port: port)
    }

    /// True when only this machine can connect.
    public var isLoopback: Bool { host.hasPrefix("127.") }

    public var description: String { "\(host):\(port)" }
}
