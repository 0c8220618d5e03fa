import OtonJSON
import WebRemoteLogic
import XCTest

/// Requests as bytes → the parser's verdict → the gate's decision: tokens, methods, origins, limits.
final class WebRemoteGateTests: XCTestCase {
    private let gate = RequestGate(token: "s3cret-token", listen: ListenAddress(host: "127.0.0.1", port: 8765))

    private func request(_ text: String) -> HTTPRequest? {
        guard case let .complete(request, _) = HTTPRequestParser().parse(Array(text.utf8)) else { return nil }
        return request
    }

    func testEveryRouteWithoutTheTokenIs401() throws {
        for target in ["/", "/state", "/events", "/artwork", "/nowhere", "/?token=wrong"] {
            let parsed = try XCTUnwrap(request("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:8765\r\n\r\n"))
            XCTAssertEqual(gate.decide(parsed), .reject(status: 401, message: "missing or wrong token: open the URL that `oton ctl web-remote url` prints"), target)
        }
        let post = try XCTUnwrap(request("POST /action HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nContent-Length: 2\r\n\r\n{}"))
        guard case .reject(401, _) = gate.decide(post) else { return XCTFail("POST without token") }
    }

    func testTheTokenInTheQueryOpensThePagesButNotActions() throws {
        XCTAssertEqual(gate.decide(try XCTUnwrap(request("GET /?token=s3cret-token HTTP/1.1\r\nHost: localhost:8765\r\n\r\n"))), .serve(.page))
        XCTAssertEqual(gate.decide(try XCTUnwrap(request("GET /events?token=s3cret-token HTTP/1.1\r\nHost: localhost:8765\r\n\r\n"))), .serve(.events))
        let queryOnly = try XCTUnwrap(request("POST /action?token=s3cret-token HTTP/1.1\r\nHost: localhost:8765\r\nContent-Length: 0\r\n\r\n"))
        guard case .reject(403, _) = gate.decide(queryOnly) else { return XCTFail("a POST with the token only in the query") }
        let header = try XCTUnwrap(request("POST /action HTTP/1.1\r\nHost: localhost:8765\r\nX-Oton-Token: s3cret-token\r\nContent-Length: 0\r\n\r\n"))
        XCTAssertEqual(gate.decide(header), .serve(.action))
    }

    func testCrossOriginRequestsAreRefusedEvenWithTheToken() throws {
        let foreign = try XCTUnwrap(request("POST /action HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nOrigin: http://evil.example\r\nX-Oton-Token: s3cret-token\r\nContent-Length: 0\r\n\r\n"))
        guard case .reject(403, _) = gate.decide(foreign) else { return XCTFail("foreign origin") }
        let own = try XCTUnwrap(request("POST /action HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nOrigin: http://127.0.0.1:8765\r\nX-Oton-Token: s3cret-token\r\nContent-Length: 0\r\n\r\n"))
        XCTAssertEqual(gate.decide(own), .serve(.action))
        let preflight = try XCTUnwrap(request("OPTIONS /action HTTP/1.1\r\nHost: [::1]:8765\r\nX-Oton-Token: s3cret-token\r\n\r\n"))
        guard case .reject(405, _) = gate.decide(preflight) else { return XCTFail("no CORS preflight is granted") }
    }

    /// DNS rebinding: a page of evil.com whose name now resolves to 127.0.0.1 sends the Origin of
    /// its own name, so the Origin matches; only the Host header tells. Refused, token or not.
    func testOnlyThisRemotesOwnHostIsServed() throws {
        let rebinding = try XCTUnwrap(request("POST /action HTTP/1.1\r\nHost: evil.com:8765\r\nOrigin: http://evil.com:8765\r\nX-Oton-Token: s3cret-token\r\nContent-Length: 0\r\n\r\n"))
        guard case .reject(403, let message) = gate.decide(rebinding) else { return XCTFail("a foreign Host with its own Origin and the token") }
        XCTAssertTrue(message.contains("Host"), message)
        for host in ["evil.com:8765", "127.0.0.1:8766", "127.0.0.1", "localhost.:8765", "10.0.0.7:8765", "127.0.0.1:8765.evil.com:8765", ""] {
            let parsed = try XCTUnwrap(request("GET /state?token=s3cret-token HTTP/1.1\r\nHost: \(host)\r\n\r\n"), host)
            guard case .reject(403, _) = gate.decide(parsed) else { return XCTFail("Host: \(host) was served") }
        }
        let noHost = try XCTUnwrap(request("GET /state?token=s3cret-token HTTP/1.0\r\n\r\n"))
        guard case .reject(403, _) = gate.decide(noHost) else { return XCTFail("no Host at all") }
        for host in ["127.0.0.1:8765", "LOCALHOST:8765", "[::1]:8765"] {
            XCTAssertEqual(gate.decide(try XCTUnwrap(request("GET /state?token=s3cret-token HTTP/1.1\r\nHost: \(host)\r\n\r\n"))), .serve(.state), host)
        }
        let lan = RequestGate(token: "s3cret-token", listen: ListenAddress(host: "0.0.0.0", port: 8765))
        XCTAssertEqual(lan.decide(try XCTUnwrap(request("GET /state?token=s3cret-token HTTP/1.1\r\nHost: 192.168.1.20:8765\r\n\r\n"))), .serve(.state),
                       "bound to 0.0.0.0, the LAN address a phone uses")
        guard case .reject(403, _) = lan.decide(try XCTUnwrap(request("GET /state?token=s3cret-token HTTP/1.1\r\nHost: evil.com:8765\r\n\r\n"))) else {
            return XCTFail("a name is never the bound address")
        }
        let bound = RequestGate(token: "s3cret-token", listen: ListenAddress(host: "192.168.1.20", port: 80))
        XCTAssertEqual(bound.decide(try XCTUnwrap(request("GET /state?token=s3cret-token HTTP/1.1\r\nHost: 192.168.1.20:80\r\n\r\n"))), .serve(.state))
    }

    func testTokenComparisonNeedsTheWholeToken() {
        XCTAssertTrue(RequestGate.constantTimeEqual("abc", "abc"))
        XCTAssertFalse(RequestGate.constantTimeEqual("abc", "abcd"))
        XCTAssertFalse(RequestGate.constantTimeEqual("", "abc"))
        XCTAssertFalse(RequestGate.constantTimeEqual("abd", "abc"))
    }

    func testParserLimitsAndMalformedInput() {
        let parser = HTTPRequestParser()
        XCTAssertEqual(parser.parse(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:8765\r\n".utf8)), .incomplete)
        guard case .refused(431, _) = parser.parse([UInt8](repeating: 65, count: 9000)) else { return XCTFail("huge head") }
        guard case .refused(413, _) = parser.parse(Array("POST /action HTTP/1.1\r\nContent-Length: 99999\r\n\r\n".utf8)) else { return XCTFail("huge body") }
        guard case .refused(411, _) = parser.parse(Array("POST /action HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) else { return XCTFail("chunked") }
        guard case .refused(400, _) = parser.parse(Array("GARBAGE\r\n\r\n".utf8)) else { return XCTFail("garbage") }
        guard case .refused(400, _) = parser.parse(Array("GET / HTTP/1.1\r\nX-Oton-Token: a\r\nX-Oton-Token: b\r\n\r\n".utf8)) else { return XCTFail("duplicate token") }
        guard case let .complete(request, consumed) = parser.parse(Array("GET /a%20b?x=1+2&token=t%26 HTTP/1.1\r\n\r\nrest".utf8)) else { return XCTFail("valid") }
        XCTAssertEqual(request.path, "/a b")
        XCTAssertEqual(request.query, ["x": "1 2", "token": "t&"])
        XCTAssertEqual(consumed, 40)
    }

    func testActionsAreOnlyThePlayerRequests() throws {
        XCTAssertEqual(try RemoteAction.parse(Array(#"{"action":"play-pause"}"#.utf8)), .playPause)
        XCTAssertEqual(try RemoteAction.parse(Array(#"{"action":"volume","value":0.25}"#.utf8)), .volume(0.25))
        XCTAssertEqual(try RemoteAction.parse(Array(#"{"action":"station","station":"2"}"#.utf8)), .switchStation("2"))
        XCTAssertThrowsError(try RemoteAction.parse(Array(#"{"action":"volume","value":7}"#.utf8)))
        XCTAssertThrowsError(try RemoteAction.parse(Array(#"{"action":"rm -rf"}"#.utf8)))
        XCTAssertThrowsError(try RemoteAction.parse(Array("not json".utf8)))
    }

    func testListenAddress() throws {
        XCTAssertEqual(try ListenAddress.parse("0.0.0.0:8765"), ListenAddress(host: "0.0.0.0", port: 8765))
        XCTAssertTrue(try ListenAddress.parse("127.0.0.1:1").isLoopback)
        XCTAssertThrowsError(try ListenAddress.parse("localhost:8765"))
        XCTAssertThrowsError(try ListenAddress.parse("0.0.0.0"))
        XCTAssertThrowsError(try ListenAddress.parse("1.2.3.4:99999"))
    }
}
