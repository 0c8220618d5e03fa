import Foundation
import SnapcastLogic

#if canImport(Glibc)
    import Glibc
#endif

/// Sends PCM to snapserver's TCP source on a thread of its own, reconnecting every second while
/// snapserver is absent or restarting. `enqueue` (the host's media mailbox) never waits: it copies
/// the buffer into the AudioBacklog and wakes the thread. While no snapserver is connected nothing
/// is kept (the sound is live); a snapserver that reads slowly, or not at all, loses the oldest
/// sound beyond the backlog's capacity. Both are counted.
///
/// `@unchecked Sendable`: `lock` guards `backlog`, `isConnected`, `sentBytes`, `connections` and
/// `stopping`; the socket and `current` belong to the sender's thread alone.
final class AudioSender: @unchecked Sendable {
    struct Figures: Sendable, Equatable {
        var isConnected: Bool
        var connections: UInt64
        var sentBytes: UInt64
        var droppedBytes: UInt64
        var droppedBuffers: UInt64
    }

    /// What the sender tells its owner, from the sender's thread.
    enum Change: Sendable {
        case connected
        case lost(String)
        case unreachable(String)
    }

    static let retryMilliseconds: Int32 = 1000
    /// The kernel's send buffer for the socket: small, so what a stuck snapserver holds of ours
    /// is bounded by the backlog we choose, not by the kernel's autotuning.
    static let socketBufferBytes: Int32 = 64 * 1024

    private let host: String
    private let port: UInt16
    private let changed: @Sendable (Change) -> Void
    private let lock = NSLock()
    private var backlog: AudioBacklog
    private var isConnected = false
    private var sentBytes: UInt64 = 0
    private var connections: UInt64 = 0
    private var stopping = false
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    private var current: [UInt8] = []
    private var currentOffset = 0

    init(host: String, port: UInt16, capacity: Int, changed: @escaping @Sendable (Change) -> Void) throws {
        self.host = host
        self.port = port
        self.changed = changed
        backlog = AudioBacklog(capacity: capacity)
        wake = try Sockets.wakePipe()
    }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "org.oton.snapcast.audio"
        thread.start()
    }

    func stop() {
        lock.withLock { stopping = true }
        Sockets.wake(wake.write)
        finished.wait()
        close(wake.read)
        close(wake.write)
    }

    var figures: Figures {
        lock.withLock {
            Figures(
                isConnected: isConnected, connections: connections, sentBytes: sentBytes,
                droppedBytes: backlog.droppedBytes, droppedBuffers: backlog.droppedBuffers)
        }
    }

    /// From the media mailbox: never blocks.
    func enqueue(_ bytes: UnsafeRawBufferPointer) {
        guard
            lock.withLock({ () -> Bool in
                if !isConnected { backlog.countDropped(bytes.count) }
                return isConnected
            })
        else { return }
        let copy = Array(bytes)  // copied outside the lock: the sender thread is not held up by it
        let wasEmpty: Bool = lock.withLock {
            guard isConnected else {
                backlog.countDropped(copy.count)
                return false
            }
            let empty = backlog.isEmpty
            backlog.append(copy)
            return empty
        }
        if wasEmpty { Sockets.wake(wake.write) }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func run() {
        var lastFailure: String?
        while !isStopping {
            let fd: Int32
            do {
                fd = try Sockets.connect(host: host, port: port, timeoutMilliseconds: 2000)
            } catch {
                let reason = "\(error)"
                if reason != lastFailure { changed(.unreachable(reason)) }
                lastFailure = reason
                pause(milliseconds: Self.retryMilliseconds)
                continue
            }
            lastFailure = nil
            var size = Self.socketBufferBytes
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            lock.withLock {
                isConnected = true
                connections += 1
            }
            changed(.connected)
            let reason = pump(fd)
            close(fd)
            lock.withLock {
                isConnected = false
                backlog.countDropped(current.count - currentOffset)
                backlog.dropAll()
            }
            current = []
            currentOffset = 0
            if let reason {
                changed(.lost(reason))
                pause(milliseconds: Self.retryMilliseconds)
            }
        }
    }

    /// Writes the backlog to `fd` until the connection fails (the reason) or the sender stops (nil).
    private func pump(_ fd: Int32) -> String? {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !isStopping {
            if currentOffset == current.count {
                current = lock.withLock { backlog.popFirst() } ?? []
                currentOffset = 0
            }
            var fds = [
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fd, events: Int16(POLLIN) | (current.isEmpty ? 0 : Int16(POLLOUT)), revents: 0),
            ]
            let ready = poll(&fds, 2, 1000)
            if ready < 0, errno != EINTR { return "poll: \(Sockets.lastError)" }
            if fds[0].revents != 0 { Sockets.drain(wake.read) }
            if fds[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                // snapserver sends nothing on this socket: readable means closed (or an error).
                let count = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                if count == 0 { return "snapserver closed the connection" }
                if count < 0, errno != EAGAIN, errno != EINTR { return Sockets.lastError }
            }
            if fds[1].revents & Int16(POLLOUT) != 0, currentOffset < current.count {
                let sent = current.withUnsafeBytes { whole in
                    send(fd, whole.baseAddress! + currentOffset, whole.count - currentOffset, Int32(MSG_NOSIGNAL))
                }
                if sent > 0 {
                    currentOffset += sent
                    lock.withLock { sentBytes += UInt64(sent) }
                } else if sent < 0, errno != EAGAIN, errno != EINTR {
                    return Sockets.lastError
                }
            }
        }
        return nil
    }

    /// Waits up to `milliseconds`, or less when stop() wakes the thread.
    private func pause(milliseconds: Int32) {
        var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, milliseconds)
        Sockets.drain(wake.read)
    }
}
