import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Finds free TCP ports on 127.0.0.1.
public enum FreePort {
    /// Binds port 0 on 127.0.0.1, reads the port the kernel chose, closes the socket.
    /// (There is an unavoidable small window in which another process could take it.)
    public static func allocate() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var addr = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw FixtureError("bind() failed: errno \(errno)") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard named == 0 else { throw FixtureError("getsockname() failed: errno \(errno)") }
        return UInt16(bigEndian: addr.sin_port)
    }

    static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }
}
