import OtonJSON
import WebRemoteLogic
import XCTest

/// Requests as bytes → the parser's verdict → the gate's decision: tokens, methods, origins, limits.
final class WebRemoteGateTests: XCTestCase {
    private let gate = RequestGate(token: "s3cret-token", listen: ListenAddress(host: "127.0.0.1", port: 8765))

    /// A request written as HTTP text, split the way libmicrohttpd hands it over (the server's
    /// parser is libmicrohttpd's now; this only saves writing each request as parts).
    private func request(_ text: String) -> HTTPRequest? {
        guard let headEnd = text.range(of: "\r\n\r\n") else { return nil }
        var lines = text[..<headEnd.lowerBound].components(separatedBy: "\r\n")
        let words = lines.removeFirst().split(separator: " ")
        guard words.count == 3 else { return nil }
        let target = words[1].split(separator: "?", maxSplits: 1)
        let query: [(String, String)] =
            target.count > 1
            ? target[1].split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            } : []
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        guard
            var request = try? HTTPRequest.assemble(
                method: String(words[0]), path: String(target[0]), headers: headers, query: query,
                maximumBodyBytes: 4096)
        else { return nil }
        request.body = Array(text[headEnd.upperBound...].utf8)
        return request
    }

    func testEveryRouteWithoutTheTokenIs401() throws {
        for target in ["/", "/state", "/events", "/artwork", "/nowhere", "/?token=wrong"] {
            let parsed = try XCTUnwrap(request("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:8765\r\n\r\n"))
            XCTAssertEqual(
                gate.decide(parsed), .reject(status: 401, message: "missing or wrong token: open the URL that `oton ctl web-remote url` prints"), target)
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
        let foreign = try XCTUnwrap(
            request("POST /action HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nOrigin: http://evil.example\r\nX-Oton-Token: s3cret-token\r\nContent-Length: 0\r\n\r\n"))
        guard case .reject(403, _) = gate.decide(foreign) else { return XCTFail("foreign origin") }
        let own = try XCTUnwrap(
            request("POST /action HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nOrigin: http://127.0.0.1:8765\r\nX-Oton-Token: s3cret-token\r\nContent-Length: 0\r\n\r\n")
        )
        XCTAssertEqual(gate.decide(own), .serve(.action))
        let preflight = try XCTUnwrap(request("OPTIONS /action HTTP/1.1\r\nHost: [::1]:8765\r\nX-Oton-Token: s3cret-token\r\n\r\n"))
        guard case .reject(405, _) = gate.decide(preflight) else { return XCTFail("no CORS preflight is granted") }
    }

    /// DNS rebinding: a page of evil.com whose name now resolves to 127.0.0.1 sends the Origin of
    /// its own name, so the Origin matches; only the Host header tells. Refused, token or not.
    func testOnlyThisRemotesOwnHostIsServed() throws {
        let rebinding = try XCTUnwrap(
            request("POST /action HTTP/1.1\r\nHost: evil.com:8765\r\nOrigin: http://evil.com:8765\r\nX-Oton-Token: s3cret-token\r\nContent-Length: 0\r\n\r\n"))
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
        XCTAssertEqual(
            lan.decide(try XCTUnwrap(request("GET /state?token=s3cret-token HTTP/1.1\r\nHost: 192.168.1.20:8765\r\n\r\n"))), .serve(.state),
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

    /// The rules libmicrohttpd leaves to us: one Host, one token header, no chunked upload, a small body.
    func testRequestAssemblyRefusesWhatCouldBeReadTwoWays() {
        func refusal(_ headers: [(String, String)]) -> Int? {
            do {
                _ = try HTTPRequest.assemble(method: "POST", path: "/action", headers: headers, query: [], maximumBodyBytes: 4096)
                return nil
            } catch {
                return error.status
            }
        }
        XCTAssertEqual(refusal([("X-Oton-Token", "a"), ("x-oton-token", "b")]), 400, "duplicate token")
        XCTAssertEqual(refusal([("Host", "127.0.0.1:8765"), ("Host", "evil.com:8765")]), 400, "duplicate Host")
        XCTAssertEqual(refusal([("Transfer-Encoding", "chunked")]), 411)
        XCTAssertEqual(refusal([("Content-Length", "99999")]), 413)
        XCTAssertEqual(refusal([("Content-Length", "-1")]), 400)
        XCTAssertNil(refusal([("Content-Length", "18"), ("Accept", "a"), ("Accept", "b")]))
        let request = try? HTTPRequest.assemble(
            method: "GET", path: "/state", headers: [("X-Oton-Token", "t")],
            query: [("token", "first"), ("token", "second")], maximumBodyBytes: 4096)
        XCTAssertEqual(request?[header: "x-oton-token"], "t", "header names are matched without case")
        XCTAssertEqual(request?.query["token"], "first", "the first of a repeated argument counts")
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
