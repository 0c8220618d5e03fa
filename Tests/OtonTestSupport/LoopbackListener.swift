import Foundation

/// A TCP socket listening on 127.0.0.1 at a port the system chose: the one way the tests' hand-made
/// peers (a silent peer, a server that never answers) open theirs.
public enum LoopbackListener {
    /// The listening descriptor and its port; nil when the system refused (errno says why).
    public static func open(backlog: Int32) -> (descriptor: Int32, port: UInt16)? {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, backlog) == 0 else {
            close(listener)
            return nil
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        return (listener, UInt16(bigEndian: address.sin_port))
    }
}
