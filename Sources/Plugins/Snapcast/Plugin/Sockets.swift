import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The few POSIX socket steps the sender and the metadata listener share. Every descriptor is
/// non-blocking and close-on-exec; every send uses MSG_NOSIGNAL (a closed peer is an error, never
/// SIGPIPE).
enum Sockets {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static var lastError: String { String(cString: strerror(errno)) }

    static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// A pipe whose write end wakes a poll() loop; both ends non-blocking.
    static func wakePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(description: "cannot create a wake pipe: \(lastError)") }
        for end in ends { makeNonBlocking(end) }
        return (ends[0], ends[1])
    }

    static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)  // a full pipe already means "wake up"
    }

    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(fd, &buffer, buffer.count) > 0 {}
    }

    /// A TCP connection to `host:port` (a name is resolved here), within `timeoutMilliseconds`.
    static func connect(host: String, port: UInt16, timeoutMilliseconds: Int32) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard fd >= 0 else { reason = lastError; continue }
            makeNonBlocking(fd)
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else { reason = lastError; close(fd); continue }
            var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&waiting, 1, timeoutMilliseconds)
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            if ready == 1, code == 0 { return fd }
            reason = ready == 0 ? "timed out" : String(cString: strerror(code))
            close(fd)
        }
        throw Failure(description: reason)
    }

    /// A listening socket on an IPv4 address; `port` 0 picks a free one. Returns it and its port.
    static func listen(host: String, port: UInt16) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "cannot create a socket: \(lastError)") }
        makeNonBlocking(fd)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 8) == 0 else {
            let reason = lastError
            close(fd)
            throw Failure(description: "cannot listen on \(host):\(port): \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }
}
