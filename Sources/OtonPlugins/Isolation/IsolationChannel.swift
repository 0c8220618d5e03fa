import Foundation
import OtonJSON
import OtonSupport

/// One end of the socket pair between oton and an isolated plugin's `oton plugin-host` child.
/// A frame is a 4-byte little-endian length, then a type byte, a 4-byte little-endian length of a
/// JSON header, the header, and raw bytes (media only). Frames are at most 64 MiB; a JSON header
/// is at most 64 KiB (``maximumHeaderBytes``): the parser needs many times a header's size, so a
/// larger one is refused from its length alone, before any of it is read.
///
/// Threading: `send` from any thread (a lock keeps frames whole); `receive` from one reader
/// thread. `send` blocks while the socket is full: the sender is a plugin's own mailbox (serial, on a pool worker)
/// (whose queue then fills and drops, counted, as for any slow plugin) or a reply.
package final class IsolationChannel: @unchecked Sendable {
    package enum Kind: UInt8, Sendable {
        // oton → child (`config` first and once: the plugin's config as JSON text, the body)
        case event = 1, media, command, destroy, ping, runReply, config
        // child → oton
        case ready = 20, failed, publish, request, reply, pong, run, registered
    }

    package struct Frame {
        package var kind: Kind
        package var header: [String: JSONValue]
        package var bytes: [UInt8] = []
    }

    package static let maximumFrameBytes = 64 << 20
    /// The largest JSON header either side accepts (media and events travel in the body, not here).
    package static let maximumHeaderBytes = 64 << 10

    package let fd: Int32
    private let writeLock = NSLock()
    private var closed = false
    /// The last `receive` returned nil because the bytes were not a frame (not because the stream ended).
    package private(set) var sawGarbage = false
    /// Why the bytes were refused, when it is more than "not a frame" (a header over the cap).
    package private(set) var refusal: String?

    package init(fd: Int32) {
        self.fd = fd
    }

    /// A connected pair: [oton's end, the child's end], both close-on-exec until the child's is handed over.
    package static func pair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw IsolationError.system("socketpair", errno)
        }
        return (fds[0], fds[1])
    }

    /// False when the other side is gone.
    @discardableResult
    package func send(_ kind: Kind, _ header: [String: JSONValue] = [:], bytes: UnsafeRawBufferPointer? = nil) -> Bool {
        write(kind, header: Array(JSONValue.object(header).jsonText.utf8), body: [], bytes: bytes)
    }

    /// A frame with no JSON header: its body alone (events and media, ``IsolationBinaryWriter``).
    @discardableResult
    package func send(_ kind: Kind, body: [UInt8], bytes: UnsafeRawBufferPointer? = nil) -> Bool {
        write(kind, header: [], body: body, bytes: bytes)
    }

    private func write(_ kind: Kind, header: [UInt8], body: [UInt8], bytes: UnsafeRawBufferPointer?) -> Bool {
        let payload = 1 + 4 + header.count + body.count + (bytes?.count ?? 0)
        guard payload <= Self.maximumFrameBytes, header.count <= Self.maximumHeaderBytes else { return false }
        var head = [UInt8]()
        head.reserveCapacity(9 + header.count + body.count)
        Self.appendLE(UInt32(payload), to: &head)
        head.append(kind.rawValue)
        Self.appendLE(UInt32(header.count), to: &head)
        head += header
        head += body
        writeLock.lock(); defer { writeLock.unlock() }
        guard !closed else { return false }
        guard head.withUnsafeBytes({ writeAll($0) }) else { return false }
        if let bytes, bytes.count > 0 { return writeAll(bytes) }
        return true
    }

    /// The next frame, or nil at the end of the stream (the other side closed or died) or on garbage.
    /// The kind and the header's length are read first: a header over ``maximumHeaderBytes`` is
    /// refused before one byte of it is read (the peer is untrusted; its length prefix is not).
    package func receive() -> Frame? {
        guard let prefix = readExactly(9) else { return nil }
        let length = Int(Self.readLE(prefix, at: 0))
        guard let kind = Kind(rawValue: prefix[4]) else { return garbage() }
        let headerLength = Int(Self.readLE(prefix, at: 5))
        guard headerLength <= Self.maximumHeaderBytes else {
            return garbage("a frame header of \(headerLength) bytes, over the \(Self.maximumHeaderBytes / 1024) KiB cap")
        }
        guard length >= 5, length <= Self.maximumFrameBytes else { return garbage() }
        guard 5 + headerLength <= length else { return garbage() }
        guard let rest = readExactly(length - 5) else { return nil }
        if headerLength == 0 { return Frame(kind: kind, header: [:], bytes: rest) }
        // The child is untrusted: its header goes through the host's bounded parser and must be an object.
        guard let header = (try? JSONParser(maxBytes: headerLength).parse(Data(rest[0..<headerLength])))?.objectValue else { return garbage() }
        return Frame(kind: kind, header: header, bytes: Array(rest[headerLength...]))
    }

    private func garbage(_ reason: String? = nil) -> Frame? {
        sawGarbage = true
        refusal = reason
        return nil
    }

    /// Later sends fail at once; the reader sees the end of the stream.
    package func close() {
        writeLock.lock()
        if !closed {
            closed = true
            shutdown(fd, Int32(SHUT_RDWR))
        }
        writeLock.unlock()
    }

    private func writeAll(_ buffer: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private func readExactly(_ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            offset += got
        }
        return out
    }

    private static func appendLE(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func readLE(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32($1 * 8) }
    }
}

package enum IsolationError: Error, CustomStringConvertible {
    case system(String, Int32)
    case child(String)
    /// The child died of `signal` (its name) before it said ready: in the plugin's entry function or create().
    case crashedStarting(signal: String)

    package var description: String {
        switch self {
        case let .system(call, code): "\(call) failed: \(String(cString: strerror(code)))"
        case let .child(reason): reason
        case let .crashedStarting(signal): tr("it crashed while starting: {signal}", ["signal": signal])
        }
    }
}
