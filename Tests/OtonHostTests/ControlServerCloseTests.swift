import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// close() ends the control server completely: when it returns, the accept thread and every
/// client thread have ended (their sockets are closed, their bus subscriptions gone).
final class ControlServerCloseTests: XCTestCase {
    /// Inodes of the sockets this process has open.
    private func openSocketInodes() -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(
            entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
                .filter { $0.hasPrefix("socket:") })
    }

    private func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else { throw NSError(domain: "connect", code: Int(errno)) }
        return fd
    }

    private func send(_ fd: Int32, _ line: String) {
        _ = line.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count - 1, 0) }
    }

    /// Reads one line (blocking, at most 10 s).
    private func readLine(_ fd: Int32) -> String? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1 {
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    func testCloseDisconnectsEveryClientAndReturnsAfterTheirThreadsEnded() throws {
        let directory = try TemporaryDirectory(self)
        let bus = PluginBus()
        let player = Player(station: Station(name: "Nowhere", url: "http://127.0.0.1:9/none"), bus: bus, options: Player.Options(headless: true)) { _ in }
        defer { player.shutdown() }
        let plugins = PluginManager(
            bus: bus, requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("d"), cacheHome: directory.file("c")))
        let before = openSocketInodes()
        let server = try ControlServer(instance: "close-test-\(getpid())", bus: bus, player: player, plugins: plugins)

        let subscriber = try connect(server.path)
        defer { Glibc.close(subscriber) }
        send(subscriber, #"{"id": 1, "command": "subscribe"}"# + "\n")
        XCTAssertEqual(readLine(subscriber).map { $0.contains("subscribed") }, true)
        let asker = try connect(server.path)
        defer { Glibc.close(asker) }
        send(asker, #"{"id": 2, "command": "status"}"# + "\n")
        XCTAssertNotNil(readLine(asker), "a status reply")
        let idle = try connect(server.path)
        defer { Glibc.close(idle) }
        send(idle, #"{"id": 3, "command": "status"}"# + "\n")
        XCTAssertNotNil(readLine(idle), "accepted; now its thread waits for the next line")
        let ours = openSocketInodes().subtracting(before)
        XCTAssertGreaterThanOrEqual(ours.count, 7, "the listener, 3 clients and the server side of each")

        XCTAssertTrue(server.close(), "every client thread ended within the wait")
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.path), "the socket file is removed")
        XCTAssertEqual(
            openSocketInodes().subtracting(before).count, 3,
            "when close() returns only the test's own 3 client sockets are left: the server closed the listener and its side of each client")
        for fd in [subscriber, asker, idle] {
            while readLine(fd) != nil {}  // what was sent before the hang-up
            var byte: UInt8 = 0
            XCTAssertEqual(recv(fd, &byte, 1, 0), 0, "the server hung up")
        }
        XCTAssertTrue(server.close(), "a second close only waits")
    }
}
