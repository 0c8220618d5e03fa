import Foundation

/// Finds a Radio Browser server the way the API documents it: the addresses of
/// `all.api.radio-browser.info` (getaddrinfo), each turned back into its name
/// (getnameinfo, e.g. `de1.api.radio-browser.info`), one picked at random so the
/// load spreads. Blocks for a DNS lookup; tests never call it (they pass --server).
public enum DirectoryServerDiscovery {
    public static let poolName = "all.api.radio-browser.info"

    /// The servers' base URLs (https), in random order; empty when the pool's addresses have no
    /// radio-browser.info names. A pool name that does not resolve at all means no network (or no
    /// DNS): the well-known name cannot be missing, and the fix is the network, not another server.
    public static func servers(pool: String = poolName) throws(DirectoryError) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(pool, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw .noNetwork(lookup: "the name \(pool) does not resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var names = Set<String>()
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &host, socklen_t(host.count), nil, 0, NI_NAMEREQD) == 0 {
                let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if name.hasSuffix(".radio-browser.info") { names.insert(name) }
            }
            entry = current.pointee.ai_next
        }
        return names.shuffled().map { "https://" + $0 }
    }
}
