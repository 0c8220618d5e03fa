import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The web remote facing a hostile LAN, against a real `oton play` of a real Icecast mount: a
/// client that names a foreign Host, and a slowloris client holding far more half-open token-less
/// connections than the server has slots. Each asserts the replies and their words, the process's
/// memory (from /proc), and that SIGTERM still ends oton within 2 s with exit status 0.
final class WebRemoteHardeningTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private func start() async throws -> (oton: OtonProcess, port: UInt16, token: String) {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let port = try FreePort.allocate()
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.web-remote", "path": "libOtonWebRemote.so", "config": {"listen": "127.0.0.1:\(port)"}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("track", timeout: 30) { $0["title"] == "Song One" }, "the first track")
        let reply = try oton.ctl(["web-remote", "url"])
        let token = try XCTUnwrap(reply.stdout.split(separator: "\n").first?.components(separatedBy: "token=").last, reply.stdout + reply.stderr)
        return (oton, port, token)
    }

    private func residentKB(_ oton: OtonProcess) throws -> Int {
        try XCTUnwrap(ProcessMemory(pid: oton.process.processIdentifier)).residentKB
    }

    /// SIGTERM ends oton within 2 s, with exit status 0, whatever the clients hold open.
    private func assertSIGTERMEndsIt(_ oton: OtonProcess, _ what: String) {
        let stopping = Date()
        oton.process.terminate()
        oton.process.waitUntilExit()
        let seconds = Date().timeIntervalSince(stopping)
        print("web remote: SIGTERM \(what) ended oton in \(String(format: "%.2f", seconds)) s")
        XCTAssertLessThan(seconds, 2, "SIGTERM \(what) ends oton within 2 s")
        XCTAssertEqual(oton.process.terminationStatus, 0, oton.directory.read("stderr.log"))
    }

    func testAForeignHostIsRefusedWithWhyAndAHugeHeadIsRefusedByLibmicrohttpd() async throws {
        let (oton, port, token) = try await start()
        let before = try residentKB(oton)
        for host in ["evil.com:\(port)", "127.0.0.1:\(port + 1)", "localhost.:\(port)", "10.0.0.7:\(port)", "127.0.0.1:\(port).evil.com"] {
            for _ in 0..<20 {
                let reply = try WebRemoteHTTPClient.exchange(port: port, "GET /state?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                XCTAssertEqual(reply.status, 403, host)
                XCTAssertTrue(
                    reply.body.hasPrefix("the Host header must name this remote (127.0.0.1, localhost, ::1 or the address it listens on, with port \(port))"),
                    reply.body)
                XCTAssertFalse(reply.body.contains("Song One"), host)
            }
        }
        let own = try WebRemoteHTTPClient.exchange(port: port, "GET /state?token=\(token) HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n")
        XCTAssertEqual(own.status, 200, own.head)
        XCTAssertTrue(own.body.contains("Song One"), own.body)
        let twoHosts = try WebRemoteHTTPClient.exchange(
            port: port, "GET /state?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nHost: evil.com:\(port)\r\n\r\n")
        XCTAssertEqual(twoHosts.status, 400, twoHosts.head)
        XCTAssertTrue(twoHosts.body.contains("duplicate host header"), twoHosts.body)
        let filler = String(repeating: "a", count: 40 * 1024)
        let huge = try WebRemoteHTTPClient.exchange(port: port, "GET /state?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Filler: \(filler)\r\n\r\n")
        XCTAssertEqual(huge.status / 100, 4, "a head beyond the connection's memory is refused: \(huge.head)")
        let after = try residentKB(oton)
        print("web remote: RSS \(before) kB before 100 foreign-Host requests and a 40 KiB head, \(after) kB after")
        XCTAssertLessThan(after - before, 20_000, "the refused requests leave no memory behind")
        assertSIGTERMEndsIt(oton, "after the foreign-Host client")
    }

    /// 120 token-less connections that send nothing, and 40 that send half a head and stop: the
    /// token holder's request is still answered at once, the server keeps at most 8 of them per
    /// address, each for at most 5 s, and its memory stays put.
    func testASlowlorisClientNeverLocksTheTokenHolderOut() async throws {
        let (oton, port, token) = try await start()
        let before = try residentKB(oton)
        let attackStarted = Date()
        var idle: [HalfOpenConnection] = []
        for _ in 0..<120 { idle.append(try HalfOpenConnection(port: port)) }
        var partial: [HalfOpenConnection] = []
        for index in 0..<40 {
            // From other loopback addresses too: the total bound, not only the per-address one.
            let connection = try HalfOpenConnection(port: port, source: "127.0.0.\(2 + index % 8)")
            connection.send("GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ")
            partial.append(connection)
        }
        print("web remote: 160 slowloris connections made in \(String(format: "%.2f", Date().timeIntervalSince(attackStarted))) s")
        var slowest = 0.0
        for _ in 0..<5 {
            let asked = Date()
            let state = try WebRemoteHTTPClient.exchange(port: port, "GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Oton-Token: \(token)\r\n\r\n")
            slowest = max(slowest, Date().timeIntervalSince(asked))
            XCTAssertEqual(state.status, 200, state.head)
            XCTAssertTrue(state.body.contains("Song One"), state.body)
            idle.append(try HalfOpenConnection(port: port))  // the attack goes on between requests
        }
        let tokenless = try WebRemoteHTTPClient.exchange(port: port, "GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertEqual(tokenless.status, 401, "a whole head without the token is judged and refused at once")
        XCTAssertEqual(tokenless.body, "missing or wrong token: open the URL that `oton ctl web-remote url` prints\n")
        let stream = try WebRemoteHTTPClient(port: port, timeoutSeconds: 15)
        stream.send("GET /events?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertTrue(stream.nextEvent()?.contains("Song One") == true, "the token holder's page opens its event channel")
        let held = try residentKB(oton)
        let open = (idle + partial).filter(\.isOpen).count
        print(
            "web remote: token holder answered in at most \(String(format: "%.3f", slowest)) s with \(idle.count + partial.count) slowloris connections made, \(open) still open; RSS \(before) kB → \(held) kB"
        )
        XCTAssertLessThan(slowest, 5, "prompt (milliseconds when idle; the margin is for a loaded machine)")
        XCTAssertLessThanOrEqual(open, 32, "the server keeps at most 32 waiting connections (8 from one address)")
        XCTAssertLessThanOrEqual(idle.filter(\.isOpen).count, 8, "at most 8 from one address")
        XCTAssertLessThan(held - before, 30_000, "memory stays bounded under the attack")
        let status = try oton.ctl(["web-remote", "status"]).stdout
        XCTAssertTrue(status.contains("1 event clients"), status)

        // The header deadline: every half-open connection is closed within 5 s of opening.
        let deadline = Date().addingTimeInterval(30)
        while (idle + partial).contains(where: \.isOpen), Date() < deadline { usleep(100_000) }
        XCTAssertEqual((idle + partial).filter(\.isOpen).count, 0, "every token-less connection that sent no whole head is closed")
        XCTAssertEqual(try oton.ctl(["volume", "50"]).status, 0)
        // Another event (a state or title) may come first on a loaded machine: the volume one must follow.
        var live = false
        for _ in 0..<20 {
            guard let event = stream.nextEvent() else { break }
            if event.contains(#""volume":0.5"#) { live = true; break }
        }
        XCTAssertTrue(live, "the token holder's event channel stays open and live")

        // Hold a fresh attack while oton is told to stop.
        for _ in 0..<64 { idle.append(try HalfOpenConnection(port: port)) }
        assertSIGTERMEndsIt(oton, "during a slowloris attack")
    }
}

/// A raw loopback connection that sends what it is told and never reads: a slowloris client.
/// `source` binds its end to another loopback address (127.0.0.0/8 is all local).
final class HalfOpenConnection {
    let fd: Int32

    init(port: UInt16, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 20, tv_usec: 0)  // bounds connect() too
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw NSError(domain: "web-remote", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "connect to \(port) failed"])
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// False once the server has closed its end (end of file or a reset).
    var isOpen: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count > 0 || (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    }
}
