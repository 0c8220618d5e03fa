import Foundation

/// Thin helpers over POSIX Unix-domain stream sockets.
package enum UnixSocket {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        /// The errno behind it, 0 when none.
        package var code: Int32 = 0
        package static func errno(_ what: String) -> Failure {
            let code = Glibc.errno
            return Failure(description: "\(what): \(String(cString: strerror(code)))", code: code)
        }

        /// Nobody listens there: no socket file, or one left behind by an oton that is gone.
        package var nobodyListens: Bool { code == ENOENT || code == ECONNREFUSED }
    }

    package static func address(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw Failure(description: "socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Binds and listens at `path`, with mode 0600.
    package static func listen(at path: String) throws(Failure) -> Int32 {
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .errno("socket") }
        let oldMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(oldMask)
        guard bound == 0 else { close(fd); throw .errno("bind \(path)") }
        chmod(path, 0o600)
        guard Glibc.listen(fd, 16) == 0 else { close(fd); throw .errno("listen") }
        return fd
    }

    package static func connect(to path: String) throws(Failure) -> Int32 {
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .errno("socket") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { close(fd); throw .errno("connect \(path)") }
        return fd
    }

    /// True when something accepts connections at `path`.
    package static func isLive(_ path: String) -> Bool {
        guard let fd = try? connect(to: path) else { return false }
        close(fd)
        return true
    }

    package static func setReceiveTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    package static func setSendTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `data`; false when the peer is gone.
    package static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}

/// Reads newline-terminated lines from a socket, refusing lines longer than a limit.
package struct LineReader {
    package enum Line {
        case line(Data)
        case tooLong
        case closed
        /// The line did not complete before its deadline.
        case timedOut
    }

    package let fd: Int32
    package let limit: Int
    private var buffer = Data()
    /// How much of `buffer` is known to hold no newline: each byte is looked at once, so a long
    /// line (a reply listing 10,000 stations) costs linear time, not a scan per chunk read.
    private var scanned = 0

    package init(fd: Int32, limit: Int) {
        self.fd = fd
        self.limit = limit
    }

    /// The next line, which must be complete by `deadline` (when given) however the bytes
    /// trickle in; without one, a read ends only as the socket's receive timeout says.
    package mutating func next(deadline: ContinuousClock.Instant? = nil) -> Line {
        while true {
            if let newline = buffer[(buffer.startIndex + scanned)...].firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                scanned = 0
                return line.count > limit ? .tooLong : .line(Data(line))
            }
            scanned = buffer.count
            if buffer.count > limit { return .tooLong }
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { return .timedOut }
                let (seconds, attoseconds) = remaining.components
                let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0 && errno == EINTR { continue }
                guard ready > 0 else { return ready == 0 ? .timedOut : .closed }
            }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return .closed }  // closed, error, or the idle timeout
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
