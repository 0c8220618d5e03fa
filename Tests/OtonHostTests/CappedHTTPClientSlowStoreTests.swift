import Foundation
import OtonHTTP
import OtonTestSupport
import XCTest

/// The limits of a request to a server on loopback that takes the connection and never answers:
/// the first-byte limit ends a HEAD in its time, and the low-speed limit ends a PUT with curl's own
/// reason, not the total limit's (which it was named as, long before that limit came).
final class CappedHTTPClientSlowStoreTests: XCTestCase {
    /// Accepts every connection and keeps it, silent; closed when the test ends.
    private final class SilentServer: @unchecked Sendable {  // `lock` guards `held`
        let port: UInt16
        private let listener: Int32
        private let lock = NSLock()
        private var held: [Int32] = []

        init(_ testCase: XCTestCase) throws {
            guard let (listener, port) = LoopbackListener.open(backlog: 8) else { throw CocoaError(.fileWriteUnknown) }
            self.listener = listener
            self.port = port
            let thread = Thread { [self] in
                while true {
                    let connection = accept(listener, nil, nil)
                    if connection < 0 { return }
                    lock.withLock { held.append(connection) }
                }
            }
            thread.start()
            testCase.addTeardownBlock { [self] in
                shutdown(listener, Int32(SHUT_RDWR))
                close(listener)
                lock.withLock { for fd in held { close(fd) } }
            }
        }
    }

    func testAHeadWithoutAnAnswerEndsAtTheFirstByteLimit() throws {
        let server = try SilentServer(self)
        let client = CappedHTTPClient(
            limits: .init(totalMilliseconds: 30_000, connectMilliseconds: 10_000, maxRedirects: 0, firstByteMilliseconds: 2000), userAgent: "test")
        let started = Date()
        XCTAssertThrowsError(try client.head("http://127.0.0.1:\(server.port)/bucket/key", signing: nil)) { error in
            XCTAssertEqual(error as? CappedHTTPClient.Failure, .transport("no answer within 2 s of the request"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 25, "ended by the first-byte limit, not the total")
    }

    func testASilentStoreEndsAPutAtTheLowSpeedLimitAndSaysSo() throws {
        let server = try SilentServer(self)
        let directory = try TemporaryDirectory(self)
        let file = try directory.write("segment.mp3", String(repeating: "x", count: 1000))
        let client = CappedHTTPClient(limits: .init(totalMilliseconds: 30_000, connectMilliseconds: 10_000, maxRedirects: 0), userAgent: "test")
        let started = Date()
        XCTAssertThrowsError(
            try client.put("http://127.0.0.1:\(server.port)/bucket/key", file: file, headers: [:], signing: nil, lowSpeedBytes: 1024, lowSpeedSeconds: 2)
        ) { error in
            let text = (error as? CappedHTTPClient.Failure)?.description ?? "\(error)"
            XCTAssertTrue(text.contains("too slow"), "the low-speed limit in curl's words: \(text)")
            XCTAssertFalse(text.contains("within 30"), "not the total limit: \(text)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 25, "ended by the low-speed limit, not the total")
    }
}
