import Foundation
import MetricsHTTP
import MetricsLogic
import OtonJSON
import OtonTestSupport
import XCTest

/// The process-wide exporter with real libmicrohttpd listeners on loopback: several instances,
/// one listener per address, and the listener's bounds.
final class MetricsListenerTests: XCTestCase {
    private let anyPort = ListenAddress(host: "127.0.0.1", port: 0)

    private func meter(_ station: String, bytes: Int) -> StationMeter {
        let meter = StationMeter(station: station, startedMonotonicNanoseconds: MetricsExporter.monotonicNow())
        meter.receive(size: bytes, connection: 1, monotonicNanoseconds: MetricsExporter.monotonicNow())
        return meter
    }

    func testInstancesShareOneListenerPerAddressAndTheLastToLeaveClosesIt() throws {
        let exporter = MetricsExporter()
        let first = try exporter.attach(meter("Jazz 24", bytes: 100), address: anyPort, hostVersion: "0.1.0")
        let second = try exporter.attach(meter("Oton FM", bytes: 7), address: anyPort, hostVersion: "0.1.0")
        XCTAssertTrue(first.startedListener)
        XCTAssertFalse(second.startedListener)
        XCTAssertEqual(first.port, second.port)
        XCTAssertEqual(exporter.addresses, [anyPort])

        let response = try XCTUnwrap(LoopbackHTTP.get(port: first.port))
        XCTAssertEqual(response.status, 200, response.head)
        XCTAssertTrue(response.head.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"), response.head)
        XCTAssertTrue(response.body.contains(#"oton_station_received_bytes_total{station="Jazz 24"} 100"#), response.body)
        XCTAssertTrue(response.body.contains(#"oton_station_received_bytes_total{station="Oton FM"} 7"#), response.body)
        XCTAssertTrue(response.body.contains("oton_sessions 2\n"), response.body)
        XCTAssertTrue(response.body.contains("\nprocess_resident_memory_bytes "), response.body)
        if let result = try Promtool.checkMetrics(response.body, in: TemporaryDirectory(self)) {
            XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        }

        XCTAssertFalse(exporter.detach(first), "the other instance still holds the listener")
        let after = try XCTUnwrap(LoopbackHTTP.get(port: second.port))
        XCTAssertFalse(after.body.contains("Jazz 24"), after.body)
        XCTAssertTrue(after.body.contains("oton_sessions 1\n"), after.body)

        XCTAssertTrue(exporter.detach(second), "the last one stops it")
        XCTAssertEqual(exporter.addresses, [])
        XCTAssertThrowsError(try LoopbackHTTP.get(port: second.port), "nothing listens any more")
    }

    func testADifferentAddressGetsItsOwnListenerServingEveryStation() throws {
        let exporter = MetricsExporter()
        let port = try FreeLoopbackPort.allocate()
        let fixed = ListenAddress(host: "127.0.0.1", port: port)
        let first = try exporter.attach(meter("A", bytes: 1), address: anyPort, hostVersion: nil)
        let second = try exporter.attach(meter("B", bytes: 2), address: fixed, hostVersion: nil)
        defer { exporter.detach(first); exporter.detach(second) }
        XCTAssertTrue(second.startedListener)
        XCTAssertEqual(second.port, port, "the configured port, exactly")
        XCTAssertNotEqual(first.port, second.port)
        for port in [first.port, second.port] {
            let body = try XCTUnwrap(LoopbackHTTP.get(port: port)).body
            XCTAssertTrue(body.contains(#"{station="A"} 1"#) && body.contains(#"{station="B"} 2"#), body)
        }
    }

    func testAnAddressInUseFailsTheAttachAndRegistersNothing() throws {
        let other = MetricsExporter()
        let holder = try other.attach(meter("Holder", bytes: 0), address: anyPort, hostVersion: nil)
        defer { other.detach(holder) }
        let exporter = MetricsExporter()
        XCTAssertThrowsError(try exporter.attach(meter("X", bytes: 0), address: ListenAddress(host: "127.0.0.1", port: holder.port), hostVersion: nil)) {
            XCTAssertTrue("\($0)".contains("cannot listen on 127.0.0.1:\(holder.port)"), "\($0)")
        }
        XCTAssertEqual(exporter.registry.count, 0)
        XCTAssertEqual(exporter.addresses, [])
    }

    func testOtherPathsAndMethodsAreRefused() throws {
        let exporter = MetricsExporter()
        let attachment = try exporter.attach(meter("S", bytes: 1), address: anyPort, hostVersion: nil)
        defer { exporter.detach(attachment) }
        let port = attachment.port
        XCTAssertEqual(try LoopbackHTTP.get(port: port, "/")?.status, 404)
        XCTAssertEqual(try LoopbackHTTP.get(port: port, "/metrics/../etc/passwd")?.status, 404)
        let post = try XCTUnwrap(
            LoopbackHTTP.exchange(port: port, "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"))
        XCTAssertEqual(post.status, 405)
        XCTAssertTrue(post.head.contains("Allow: GET, HEAD"), post.head)
        let head = try XCTUnwrap(LoopbackHTTP.exchange(port: port, "HEAD /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.body, "", "HEAD has no body")
        let foreign = try XCTUnwrap(LoopbackHTTP.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: evil.example:\(port)\r\nConnection: close\r\n\r\n"))
        XCTAssertEqual(foreign.status, 403, "a page of another name (DNS rebinding) reads nothing (issue 39, N9)")
        XCTAssertFalse(foreign.body.contains("oton_"), foreign.body)
    }

    func testAnOversizedRequestHeadIsRefusedAndAnIdleConnectionIsClosed() throws {
        var limits = ServerLimits()
        limits.idleSeconds = 1
        let exporter = MetricsExporter(limits: limits)
        let attachment = try exporter.attach(meter("S", bytes: 1), address: anyPort, hostVersion: nil)
        defer { exporter.detach(attachment) }
        func status(headBytes: Int) throws -> Int? {
            let filler = String(repeating: "a", count: headBytes)
            return try LoopbackHTTP.exchange(
                port: attachment.port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(attachment.port)\r\nX-Filler: \(filler)\r\n\r\n")?.status
        }
        XCTAssertEqual(try status(headBytes: 2 * 1024), 200, "a large but reasonable head is served")
        XCTAssertEqual(try status(headBytes: 16 * 1024), 431, "a head beyond the connection's 8 KiB is refused")
        XCTAssertEqual(try status(headBytes: 1024 * 1024), 431)

        // A client that connects and says nothing is closed after the idle limit (1 s here), long before our 20 s wait.
        let fd = try LoopbackHTTP.connect(port: attachment.port, timeoutSeconds: 20)
        defer { close(fd) }
        let started = Date()
        var byte: UInt8 = 0
        XCTAssertEqual(recv(fd, &byte, 1, 0), 0, "closed by the server")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
        XCTAssertEqual(try LoopbackHTTP.get(port: attachment.port)?.status, 200, "and the listener still serves")
    }

    func testMoreClientsThanTheLimitDoNotStopTheListenerServingLater() throws {
        var limits = ServerLimits()
        limits.maximumConnections = 2
        limits.idleSeconds = 2
        let exporter = MetricsExporter(limits: limits)
        let attachment = try exporter.attach(meter("S", bytes: 1), address: anyPort, hostVersion: nil)
        defer { exporter.detach(attachment) }
        let idle = try (0..<6).map { _ in try LoopbackHTTP.connect(port: attachment.port) }
        defer { idle.forEach { close($0) } }
        // The idle ones are closed within the idle limit; a scrape then succeeds (retried until a deadline).
        let deadline = Date().addingTimeInterval(30)
        var status: Int?
        while Date() < deadline, status != 200 {
            status = try? LoopbackHTTP.get(port: attachment.port)?.status
            if status != 200 { usleep(100_000) }
        }
        XCTAssertEqual(status, 200)
    }
}

/// A free TCP port on 127.0.0.1 (bound, read, closed).
enum FreeLoopbackPort {
    static func allocate() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw LoopbackHTTP.Refused() }
        return UInt16(bigEndian: address.sin_port)
    }
}

extension MetricsListenerTests {
    /// Issue 39, N9: 16 connections that trickle a request head a byte a second (reopened as soon as
    /// they are closed) locked the scraper out: libmicrohttpd's limit was full and the idle timer never
    /// ran out. The web remote's rules now apply (ConnectionGate): a head must arrive within 5 s, and a
    /// new connection pushes out the oldest waiting one, so the scraper gets its answer.
    func testTricklingConnectionsDoNotLockTheScraperOut() throws {
        let exporter = MetricsExporter()
        let attachment = try exporter.attach(meter("S", bytes: 1), address: anyPort, hostVersion: nil)
        defer { exporter.detach(attachment) }
        let port = attachment.port
        let stop = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let attacker = Thread {
            var sockets: [Int32] = []
            let head = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
            var sent = 0
            while stop.wait(timeout: .now() + 0.5) == .timedOut {
                // Keep 20 open, each sending one more byte of a head that never ends.
                sockets = sockets.filter { fd in
                    let byte = [head[sent % head.count]]
                    let result = byte.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                    var probe: UInt8 = 0
                    let closed = result < 0 || recv(fd, &probe, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0
                    if closed { close(fd) }
                    return !closed
                }
                sent += 1
                while sockets.count < 20, let fd = try? LoopbackHTTP.connect(port: port, timeoutSeconds: 1) { sockets.append(fd) }
            }
            sockets.forEach { close($0) }
            done.signal()
        }
        attacker.start()
        defer { stop.signal(); done.wait() }
        Thread.sleep(forTimeInterval: 3)  // the trickling connections fill what they can
        var answered: LoopbackHTTP.Response?
        let deadline = Date().addingTimeInterval(45)
        while answered?.status != 200 && Date() < deadline {
            answered = try? LoopbackHTTP.get(port: port)
            if answered?.status != 200 { Thread.sleep(forTimeInterval: 0.5) }
        }
        XCTAssertEqual(answered?.status, 200, "the scraper gets in among 20 trickling connections")
        XCTAssertTrue(answered?.body.contains(#"{station="S"} 1"#) == true)
    }
}
