import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The web remote against a real `oton play` of a real Icecast mount: the token on every route,
/// no cross-origin actions, live updates over the event stream, actions that the player obeys,
/// and clients that misbehave without touching playback or the bus.
final class WebRemoteTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private struct Remote {
        let oton: OtonProcess
        let events: ControlClient
        let port: UInt16
        let token: String
        let url: String
        let reply: String
    }

    private func start(maxEventClients: Int = 32, extraPlugins: String = "", extraStations: String = "", isolation: String? = nil) async throws -> Remote {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let port = try FreePort.allocate()
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}\(extraStations)],
             "plugins": [
               {"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so"},\(extraPlugins)
               {"id": "org.oton.web-remote", "path": "libOtonWebRemote.so",\(isolation.map { #" "isolation": "\#($0)","# } ?? "")
                "config": {"listen": "127.0.0.1:\(port)", "max_event_clients": \(maxEventClients)}}
             ]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song One" }, "the first track")
        let reply = try oton.ctl(["web-remote", "url"])
        XCTAssertEqual(reply.status, 0, reply.stderr + oton.directory.read("stderr.log"))
        let url = try XCTUnwrap(reply.stdout.split(separator: "\n").first.map(String.init))
        let token = try XCTUnwrap(url.components(separatedBy: "token=").last)
        XCTAssertEqual(url, "http://127.0.0.1:\(port)/?token=\(token)")
        XCTAssertEqual(token.count, 32)
        let tokenFile = oton.directory.file("data") + "/oton/plugins/org.oton.web-remote/token"
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the token file is private")
        return Remote(oton: oton, events: events, port: port, token: token, url: url, reply: reply.stdout)
    }

    private func get(_ remote: Remote, _ target: String, headers: String = "") throws -> WebRemoteHTTPClient.Response {
        try WebRemoteHTTPClient.exchange(port: remote.port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\n\(headers)\r\n")
    }

    private func post(_ remote: Remote, _ body: String, headers: String) throws -> WebRemoteHTTPClient.Response {
        try WebRemoteHTTPClient.exchange(
            port: remote.port,
            "POST /action HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)"
        )
    }

    /// The issue asks that the remote run isolated too: the page, its actions, and the commands it
    /// runs (sleep, stations) all work from a child process.
    func testTheRemoteWorksIsolatedInAProcessOfItsOwn() async throws {
        let remote = try await start(isolation: "process")
        XCTAssertTrue(
            remote.oton.directory.read("stderr.log").contains("plugin org.oton.web-remote 0.1.0 started in its own process"),
            remote.oton.directory.read("stderr.log"))
        let state = try get(remote, "/state?token=\(remote.token)")
        XCTAssertEqual(state.status, 200)
        XCTAssertTrue(state.body.contains(#""title":"Song One""#), state.body)
        let sleep = try post(remote, #"{"action":"sleep","value":"30m"}"#, headers: "X-Oton-Token: \(remote.token)\r\n")
        XCTAssertEqual(sleep.status, 202, sleep.body)
        let set = remote.events.waitForEvent("org.oton.sleep.set")
        XCTAssertEqual(set?["seconds"], "1800", "the sleep command ran from the child, through oton: \(String(describing: set))")
        var stations = ""
        for _ in 0..<100 where !stations.contains(#""name":"Test FM""#) {
            stations = try get(remote, "/state?token=\(remote.token)").body
            usleep(50_000)
        }
        XCTAssertTrue(stations.contains(#""stations":[{"current":true,"name":"Test FM","number":1}]"#), stations)
        let pause = try post(remote, #"{"action":"play-pause"}"#, headers: "X-Oton-Token: \(remote.token)\r\n")
        XCTAssertEqual(pause.status, 202, pause.body)
        XCTAssertNotNil(remote.events.waitForEvent("state") { $0["state"] == "paused" }, "its request reached the player")
        let url = try remote.oton.ctl(["web-remote", "url"])
        XCTAssertEqual(url.stdout.split(separator: "\n").first.map(String.init), remote.url, "its command answers from the child")
    }

    /// DNS rebinding, as a hostile client does it: a page of evil.com (whose name now resolves to
    /// 127.0.0.1) sends its own Origin, which matches its Host, and the token it learned. Refused
    /// for its Host; the same request with this remote's Host is served.
    func testARebindingPageIsRefusedForItsHostEvenWithTheToken() async throws {
        let remote = try await start()
        let rebound = try WebRemoteHTTPClient.exchange(
            port: remote.port,
            "POST /action HTTP/1.1\r\nHost: evil.com:\(remote.port)\r\nOrigin: http://evil.com:\(remote.port)\r\nX-Oton-Token: \(remote.token)\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n{\"action\":\"pause\"}"
        )
        XCTAssertEqual(rebound.status, 403, rebound.head + rebound.body)
        XCTAssertTrue(rebound.body.contains("Host"), rebound.body)
        let read = try WebRemoteHTTPClient.exchange(port: remote.port, "GET /state?token=\(remote.token) HTTP/1.1\r\nHost: evil.com:\(remote.port)\r\n\r\n")
        XCTAssertEqual(read.status, 403, "nor can it read the state")
        XCTAssertFalse(read.body.contains("Song One"))
        XCTAssertTrue(try remote.oton.ctl(["status"]).stdout.hasPrefix("playing"), "nothing above paused playback")
        let own = try WebRemoteHTTPClient.exchange(
            port: remote.port,
            "POST /action HTTP/1.1\r\nHost: localhost:\(remote.port)\r\nOrigin: http://localhost:\(remote.port)\r\nX-Oton-Token: \(remote.token)\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n{\"action\":\"pause\"}"
        )
        XCTAssertEqual(own.status, 202, own.head + own.body)
        XCTAssertNotNil(remote.events.waitForEvent("state") { $0["state"] == "paused" }, "this remote's own Host is served")
    }

    /// Listening on every network is worth a warning, not an info line; a request naming one of
    /// this machine's IPv4 addresses as Host is still served there (a phone uses the LAN address).
    func testListeningOnEveryNetworkIsAWarning() async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let port = try FreePort.allocate()
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.web-remote", "path": "libOtonWebRemote.so", "config": {"listen": "0.0.0.0:\(port)"}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        _ = try oton.connect()
        let reply = try oton.ctl(["web-remote", "url"])
        let token = try XCTUnwrap(reply.stdout.split(separator: "\n").first?.components(separatedBy: "token=").last, reply.stdout + reply.stderr)
        let line = oton.directory.read("stderr.log").split(separator: "\n").first { $0.contains("web remote on http://0.0.0.0:\(port)/") }
        XCTAssertTrue(line?.contains(" warning ") ?? false, "\(String(describing: line))")
        let status = try oton.ctl(["web-remote", "status"]).stdout
        XCTAssertTrue(status.hasPrefix("warning: every network this machine is on can reach the web remote"), status)
        let lan = try WebRemoteHTTPClient.exchange(port: port, "GET /state?token=\(token) HTTP/1.1\r\nHost: 127.0.0.2:\(port)\r\n\r\n")
        XCTAssertEqual(lan.status, 200, lan.head)
        let named = try WebRemoteHTTPClient.exchange(port: port, "GET /state?token=\(token) HTTP/1.1\r\nHost: evil.com:\(port)\r\n\r\n")
        XCTAssertEqual(named.status, 403, named.head)
    }

    func testEveryRouteNeedsTheTokenAndAForeignPageCannotAct() async throws {
        let remote = try await start()
        XCTAssertTrue(remote.reply.contains("█"), "a QR code follows the URL:\n\(remote.reply)")
        for target in ["/", "/state", "/events", "/artwork", "/action", "/nowhere", "/?token=wrong", "/events?token=\(remote.token.dropLast())"] {
            let response = try get(remote, target)
            XCTAssertEqual(response.status, 401, target)
            XCTAssertFalse(response.body.contains("Song One"), target)
        }
        XCTAssertEqual(try post(remote, #"{"action":"pause"}"#, headers: "").status, 401, "a POST without any token")
        // A foreign page: it may know the URL (even the token, from a leaked link) but cannot add our header.
        let foreignForm = try post(remote, #"{"action":"pause"}"#, headers: "Origin: http://evil.example\r\n")
        XCTAssertEqual(foreignForm.status, 401)
        let foreignWithQueryToken = try WebRemoteHTTPClient.exchange(
            port: remote.port,
            "POST /action?token=\(remote.token) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\nOrigin: http://evil.example\r\nContent-Length: 18\r\n\r\n{\"action\":\"pause\"}"
        )
        XCTAssertEqual(foreignWithQueryToken.status, 403)
        let sameOriginQueryOnly = try WebRemoteHTTPClient.exchange(
            port: remote.port,
            "POST /action?token=\(remote.token) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\nContent-Length: 18\r\n\r\n{\"action\":\"pause\"}")
        XCTAssertEqual(sameOriginQueryOnly.status, 403, "the token must be in the header for actions")
        let preflight = try WebRemoteHTTPClient.exchange(
            port: remote.port,
            "OPTIONS /action?token=\(remote.token) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Headers: x-oton-token\r\n\r\n"
        )
        XCTAssertNotEqual(preflight.status, 200)
        XCTAssertFalse(preflight.head.lowercased().contains("access-control-allow"), preflight.head)
        XCTAssertTrue(try remote.oton.ctl(["status"]).stdout.hasPrefix("playing"), "nothing above paused playback")

        let page = try get(remote, "/?token=\(remote.token)")
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("<title>Oton</title>"))
        XCTAssertFalse(page.head.lowercased().contains("access-control-allow-origin"), "no CORS at all")
        XCTAssertTrue(page.head.contains("Referrer-Policy: no-referrer"), "the token in the URL never leaves as a referrer")
        let state = try get(remote, "/state", headers: "X-Oton-Token: \(remote.token)\r\n")
        XCTAssertEqual(state.status, 200)
        XCTAssertTrue(state.body.contains(#""title":"Song One""#), state.body)
        XCTAssertEqual(try get(remote, "/artwork?token=\(remote.token)").status, 404, "no artwork plugin, no artwork")
        let oversized = try WebRemoteHTTPClient.exchange(
            port: remote.port,
            "POST /action HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\nX-Oton-Token: \(remote.token)\r\nContent-Length: 1000000\r\n\r\n")
        XCTAssertEqual(oversized.status, 413)
    }

    func testArtworkSleepAndShareEventsReachThePageAndTheArtworkIsServedNotItsPath() async throws {
        let remote = try await start(
            extraPlugins: """

                   {"id": "org.oton.share", "path": "libOtonShare.so"},
                   {"id": "org.oton.artwork", "path": "libOtonArtwork.so", "config": {"timeout_seconds": 2, "status_retry_seconds": []}},
                """)
        let artwork = try XCTUnwrap(remote.events.waitForEvent("org.oton.artwork.ready"), "the artwork plugin's built-in image")
        let path = try XCTUnwrap(artwork["path"])
        let image = try get(remote, "/artwork?token=\(remote.token)&v=1")
        XCTAssertEqual(image.status, 200)
        XCTAssertTrue(image.head.contains("Content-Type: image/"), image.head)
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: path))
        let length = image.head.components(separatedBy: "Content-Length: ").last?.components(separatedBy: "\r\n").first
        XCTAssertEqual(length.flatMap { Int($0) }, onDisk.count, "the file's bytes, whole")
        XCTAssertEqual(try get(remote, "/artwork").status, 401)

        XCTAssertEqual(try remote.oton.ctl(["sleep", "10m"]).status, 0)
        XCTAssertEqual(try remote.oton.ctl(["share"]).status, 0)
        XCTAssertNotNil(remote.events.waitForEvent("org.oton.share"))
        let state = try get(remote, "/state?token=\(remote.token)").body
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any])
        XCTAssertFalse(state.contains(path), "the file's path never reaches the page")
        XCTAssertNotNil(object["artwork"], state)
        if let colour = artwork["color"] { XCTAssertEqual(object["color"] as? String, colour) }
        let sleep = try XCTUnwrap(object["sleep"] as? [String: Any], state)
        XCTAssertEqual(sleep["action"] as? String, "stop")
        XCTAssertTrue((590...600).contains(sleep["remaining_seconds"] as? Int ?? 0), state)
        let share = try XCTUnwrap(object["share"] as? [String: Any])
        XCTAssertTrue((share["text"] as? String ?? "").contains("Song One"), state)
        XCTAssertFalse((share["links"] as? [String] ?? []).isEmpty, state)
        XCTAssertEqual(try remote.oton.ctl(["sleep", "cancel"]).status, 0)
        XCTAssertNotNil(remote.events.waitForEvent("org.oton.sleep.cancelled"))
        XCTAssertFalse(try get(remote, "/state?token=\(remote.token)").body.contains(#""sleep""#))
    }

    func testStationsSwitchFromThePageByNameAndByNextAndPrevious() async throws {
        _ = try await server.startSource(mount: "/b.mp3", format: .mp3, initialTitle: "Artist B - Song B", stationName: "Beta FM")
        let remote = try await start(extraStations: #", {"name": "Beta", "url": "\#(server.url(mount: "/b.mp3"))"}"#)
        let header = "X-Oton-Token: \(remote.token)\r\n"
        XCTAssertEqual(try post(remote, #"{"action":"station","station":"Beta"}"#, headers: header).status, 202)
        XCTAssertNotNil(remote.events.waitForEvent("track") { $0["title"] == "Song B" }, "switched by name")
        XCTAssertEqual(try post(remote, #"{"action":"next"}"#, headers: header).status, 202)
        XCTAssertNotNil(remote.events.waitForEvent("track") { $0["title"] == "Song One" }, "next wraps to the first")
        XCTAssertEqual(try post(remote, #"{"action":"prev"}"#, headers: header).status, 202)
        XCTAssertNotNil(remote.events.waitForEvent("track") { $0["title"] == "Song B" }, "previous wraps to the last")
        let state = try get(remote, "/state?token=\(remote.token)").body
        XCTAssertTrue(state.contains(#""station":"Beta FM""#), state)
        XCTAssertTrue(state.contains(#""title":"Song B""#), state)
        XCTAssertEqual(try post(remote, #"{"action":"station","station":""}"#, headers: header).status, 400, "an empty name is refused, with why")
    }

    /// Issue 36 §3: the page's loudness toggle is `oton ctl level off|on`, and the page shows it.
    func testTheLoudnessToggleTurnsLevellingOffAndOnAsCtlSees() async throws {
        let remote = try await start()
        let header = "X-Oton-Token: \(remote.token)\r\n"
        try pollUntil(#""level":{"enabled":true"#, in: remote, "the page shows levelling on")
        XCTAssertEqual(try post(remote, #"{"action":"level","value":"off"}"#, headers: header).status, 202)
        try pollUntil(#""level":{"enabled":false}"#, in: remote, "the page shows it off")
        XCTAssertTrue(try remote.oton.ctl(["level"]).stdout.hasPrefix("level off"), "ctl sees what the page did")
        XCTAssertEqual(try post(remote, #"{"action":"level","value":"on"}"#, headers: header).status, 202)
        try pollUntil(#""level":{"enabled":true"#, in: remote, "on again")
        XCTAssertTrue(try remote.oton.ctl(["level"]).stdout.hasPrefix("level "), "level on")
        XCTAssertFalse(try remote.oton.ctl(["level"]).stdout.hasPrefix("level off"))
        XCTAssertEqual(try post(remote, #"{"action":"level","value":"loud"}"#, headers: header).status, 400)
    }

    private func pollUntil(_ text: String, in remote: Remote, _ what: String, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var body = ""
        while Date() < deadline {
            body = try get(remote, "/state?token=\(remote.token)").body
            if body.contains(text) { return }
            usleep(100_000)
        }
        XCTFail("\(what): \(body)")
    }

    func testAPortInUseIsAClearErrorAndPlaybackGoesOn() async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let taken = server.port  // Icecast listens there
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.web-remote", "path": "libOtonWebRemote.so", "config": {"listen": "127.0.0.1:\(taken)"}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "playback is not affected")
        let list = try oton.ctl(["plugins"]).stdout
        XCTAssertTrue(list.contains("cannot listen on 127.0.0.1:\(taken)"), list)
        XCTAssertTrue(list.contains("pick another \"listen\" port"), list)
    }

    func testATitleChangeReachesTheEventStreamWithinASecondAndPauseFromThePageIsWhatCtlSees() async throws {
        let remote = try await start()
        let stream = try WebRemoteHTTPClient(port: remote.port, timeoutSeconds: 15)
        stream.send("GET /events?token=\(remote.token) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\n\r\n")
        let first = try XCTUnwrap(stream.nextEvent(), "the current state arrives at once")
        XCTAssertTrue(first.contains(#""title":"Song One""#), first)

        try await server.setTitle(mount: "/live.mp3", title: "Artist B - Song Two")
        var delivered: String?
        while let event = stream.nextEvent() {
            if event.contains(#""title":"Song Two""#) { delivered = event; break }
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let arrival = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        XCTAssertNotNil(delivered, "the new title reaches the page")
        var published: Int64?
        _ = remote.events.waitForEvent("track", where: { $0["title"] == "Song Two" }) { event in
            if event.kind == "track", event.fields["title"] == "Song Two" {
                published = event.monotonicNanoseconds
            }
        }
        let latency = Double(arrival - (try XCTUnwrap(published, "the bus's track event has its time"))) / 1e9
        print("web remote: bus track event → event stream in \(String(format: "%.1f", latency * 1000)) ms")
        XCTAssertLessThan(latency, 2.5, "pushed with the bus event (milliseconds when idle; the margin is for a loaded machine)")

        let pause = try post(remote, #"{"action":"play-pause"}"#, headers: "X-Oton-Token: \(remote.token)\r\nOrigin: http://127.0.0.1:\(remote.port)\r\n")
        XCTAssertEqual(pause.status, 202, pause.body)
        XCTAssertNotNil(remote.events.waitForEvent("state") { $0["state"] == "paused" })
        XCTAssertTrue(try remote.oton.ctl(["status"]).stdout.hasPrefix("paused"))
        var paused = false
        while let event = stream.nextEvent() {
            if event.contains(#""state":"paused""#) { paused = true; break }
        }
        XCTAssertTrue(paused, "the page hears of it too")
        XCTAssertEqual(try post(remote, #"{"action":"volume","value":0.4}"#, headers: "X-Oton-Token: \(remote.token)\r\n").status, 202)
        XCTAssertNotNil(remote.events.waitForEvent("volume") { $0["volume"] == "0.400" })
        XCTAssertEqual(
            try post(remote, #"{"action":"volume","value":9}"#, headers: "X-Oton-Token: \(remote.token)\r\n").status, 400, "a bad value is refused, with why")
    }

    func testTwoHundredEventClientsAndOneThatNeverReadsLeavePlaybackAndTheBusGoing() async throws {
        let remote = try await start(maxEventClients: 32)
        // One page that reads, then 199 that never do.
        let reader = try WebRemoteHTTPClient(port: remote.port, timeoutSeconds: 10)
        reader.send("GET /events?token=\(remote.token) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\n\r\n")
        XCTAssertNotNil(reader.nextEvent())
        var clients: [WebRemoteHTTPClient] = []
        var refused = 0
        for _ in 0..<199 {
            guard let client = try? WebRemoteHTTPClient(port: remote.port, timeoutSeconds: 5, receiveBuffer: 4096) else { refused += 1; continue }
            client.send("GET /events?token=\(remote.token) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\n\r\n")
            clients.append(client)  // none of them ever reads
        }
        // Flood the page state: every volume step is an update for 32 clients that never read. Each
        // step waits until the reading page has it, so the steps are 300 distinct updates (the server
        // sends the state as it is when it wakes: steps posted faster than that would merge).
        let started = Date()
        var lastVersion = -1
        for step in 0..<300 {
            let value = String(format: "%.3f", Double(step % 100) / 100)
            _ = try? post(remote, "{\"action\":\"volume\",\"value\":\(value)}", headers: "X-Oton-Token: \(remote.token)\r\n")
            while let event = reader.nextEvent() {
                let object = (try? JSONSerialization.jsonObject(with: Data(event.utf8))) as? [String: Any]
                let version = object?["version"] as? Int ?? lastVersion
                let volume = object?["volume"] as? Double ?? -1
                if version != lastVersion, abs(volume - Double(step % 100) / 100) < 0.0005 { lastVersion = version; break }
            }
        }
        print(
            "web remote: 300 actions with 200 event clients (\(refused) refused at connect) in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        try await server.setTitle(mount: "/live.mp3", title: "Artist C - Song Three")
        XCTAssertNotNil(remote.events.waitForEvent("track", timeout: 20) { $0["title"] == "Song Three" }, "the bus still delivers")
        XCTAssertTrue(try remote.oton.ctl(["status"]).stdout.hasPrefix("playing"), "playback goes on")
        var readerSaw: String?
        while let event = reader.nextEvent() {
            if event.contains(#""title":"Song Three""#) { readerSaw = event; break }
        }
        XCTAssertTrue(readerSaw?.contains(#""volume":0.99"#) == true, "the reading page has the last volume and the new title: \(readerSaw ?? "nothing")")
        let status = try remote.oton.ctl(["web-remote", "status"]).stdout
        print("web remote: \(status)")
        XCTAssertTrue(status.contains("32 event clients (at most 32)"), status)
        let dropped = status.components(separatedBy: ", ").last.flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        XCTAssertGreaterThan(dropped, 0, "the clients that never read lost updates, counted: \(status)")
        // A newcomer beyond the limit is told why; once the others leave, a reader gets the current state at once.
        let late = try get(remote, "/events?token=\(remote.token)")
        XCTAssertEqual(late.status, 503)
        XCTAssertTrue(late.body.contains("too many event clients"), late.body)
        clients.removeAll()
        var fresh: String?
        for _ in 0..<50 where fresh == nil {
            let stream = try WebRemoteHTTPClient(port: remote.port, timeoutSeconds: 5)
            stream.send("GET /events?token=\(remote.token) HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\n\r\n")
            fresh = stream.nextEvent()
            if fresh == nil { usleep(100_000) }  // the server notices the closed sockets on its next poll
        }
        XCTAssertTrue(fresh?.contains(#""title":"Song Three""#) == true, fresh ?? "no event stream")
        let stderr = remote.oton.directory.read("stderr.log")
        XCTAssertFalse(stderr.contains("dropped") && stderr.contains("org.oton.web-remote"), "the plugin's own mailbox never overflowed:\n\(stderr)")
    }
}
