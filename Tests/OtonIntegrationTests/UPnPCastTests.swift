import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The UPnP casting plugin against real renderers. SSDP needs a multicast interface that is not
/// loopback (gmediarender's libupnp refuses `lo`), and the tests must touch nothing outside this
/// machine: so each test runs its scenario (``UPnPNamespaceScenarios``) in a network namespace it
/// creates (`unshare -n`, or `unshare -rn` when not root), with a veth pair of its own as the
/// only network besides `lo`. Icecast, gmediarender, the hostile renderers and oton all run in it.
final class UPnPCastTests: XCTestCase {
    /// `oton ctl cast to` a real gmediarender: it plays the station's URL with its title, fetches
    /// the Icecast mount itself while local playback pauses, and `cast stop` plays locally again.
    func testCastingToGmediarenderAndBack() throws {
        try runScenario("testCastingToGmediarenderAndBack")
    }

    /// A titleless Ogg station: its codec is known (status, `cast to`), and a switch to it while
    /// casting hands it to the renderer instead of playing it locally beside the renderer's.
    func testCastingATitlelessOggStation() throws {
        try runScenario("testCastingATitlelessOggStation")
    }

    /// Renderers that answer SOAP faults, that never answer, and whose names are hostile.
    func testHostileRenderers() throws {
        try runScenario("testHostileRenderers")
    }

    /// A renderer whose device description is 200 MiB (issue 39 N16): the isolated plugin's worker
    /// hits its memory limit and dies instead of holding the description, is restarted, and oton
    /// plays on with its own memory small.
    func testARendererWithAHugeDescriptionCostsThePluginItsProcessNotOtonItsMemory() throws {
        try runScenario("testARendererWithAHugeDescriptionCostsThePluginItsProcessNotOtonItsMemory")
    }

    /// Without "isolation": "process" the plugin would load GUPnP's libsoup 3 beside the player's
    /// libsoup 2.4, which aborts oton: it refuses to start instead, saying what to add, and oton plays on.
    func testInsideOtonsOwnProcessThePluginRefusesToStartAndSaysWhy() throws {
        guard ProcessInfo.processInfo.environment[UPnPNamespaceScenarios.insideVariable] == nil else { return }
        let plugins = """
            {"stations": [{"name": "Nowhere", "url": "http://127.0.0.1:9/none.mp3"}],
             "plugins": [{"id": "org.oton.upnp", "path": "libOtonUPnP.so", "config": {"interface": "lo"}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Nowhere", "--headless"], plugins: plugins)
        _ = try oton.connect()
        XCTAssertTrue(
            oton.directory.read("stderr.log").contains(
                #"org.oton.upnp failed to start: the UPnP plugin must run in a process of its own: add "isolation": "process" to its entry in plugins.json"#),
            oton.directory.read("stderr.log"))
        let reply = try oton.ctl(["cast", "list"])
        XCTAssertNotEqual(reply.status, 0, "no cast command without the plugin")
        XCTAssertTrue(oton.process.isRunning, "oton goes on")
    }

    /// The isolated plugin's process logs at oton's level: under `--log-level warning` (what the
    /// status line shows) its info lines ("searching for UPnP renderers…") stay out of the terminal.
    func testTheIsolatedPluginsInfoLinesFollowOtonsLogLevel() throws {
        guard ProcessInfo.processInfo.environment[UPnPNamespaceScenarios.insideVariable] == nil else { return }
        let plugins = """
            {"stations": [{"name": "Nowhere", "url": "http://127.0.0.1:9/none.mp3"}],
             "plugins": [{"id": "org.oton.upnp", "path": "libOtonUPnP.so", "isolation": "process", "config": {"interface": "lo"}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Nowhere", "--headless", "--log-level", "warning"], plugins: plugins)
        _ = try oton.connect()
        let reply = try oton.ctl(["cast", "list"])
        XCTAssertEqual(reply.status, 0, "the plugin runs: \(reply.stderr) \(oton.directory.read("stderr.log"))")
        let stderr = oton.directory.read("stderr.log")
        XCTAssertFalse(stderr.contains(" info "), "no info line under --log-level warning: \(stderr)")
    }

    private func runScenario(_ name: String) throws {
        guard ProcessInfo.processInfo.environment[UPnPNamespaceScenarios.insideVariable] == nil else { return }
        let directory = try TemporaryDirectory(self)
        let bundle = TestPaths.products + "/OtonPackageTests.xctest"
        let script = """
            set -e
            ip link set lo up
            ip link add oton0 type veth peer name oton1
            ip addr add \(UPnPNamespaceScenarios.address)/24 dev oton0
            ip link set oton0 up multicast on
            ip link set oton1 up
            exec "$0" "OtonIntegrationTests.UPnPNamespaceScenarios/\(name)"
            """
        let output = try logFile(directory.file("scenario.log"))
        var environment = ProcessInfo.processInfo.environment
        environment[UPnPNamespaceScenarios.insideVariable] = "1"
        let scenario = ManagedProcess(
            name: "unshare", executable: "/usr/bin/unshare",
            arguments: [geteuid() == 0 ? "-n" : "-rn", "sh", "-c", script, bundle],
            environment: environment, stdout: output, stderr: output)
        try scenario.start()
        XCTAssertTrue(scenario.waitForExit(timeout: 300), "the scenario ended within 300 s")
        let log = directory.read("scenario.log")
        for line in log.split(separator: "\n") where line.hasPrefix("UPNP FIGURE") { print(line) }  // into the test's log
        XCTAssertEqual(scenario.terminationStatus, 0, log)
        XCTAssertTrue(log.contains(UPnPNamespaceScenarios.passedMarker + name), "the scenario ran to its end, not skipped: \(log)")
    }

    private func logFile(_ path: String) throws -> FileHandle {
        FileManager.default.createFile(atPath: path, contents: nil)
        return try XCTUnwrap(FileHandle(forWritingAtPath: path))
    }
}

/// The scenarios of ``UPnPCastTests``, run inside the network namespace it creates (skipped
/// elsewhere: they need its interface).
final class UPnPNamespaceScenarios: XCTestCase {
    static let insideVariable = "OTON_TEST_UPNP_NAMESPACE"
    static let address = "10.213.0.1"
    static let interface = "oton0"
    static let passedMarker = "UPNP SCENARIO PASSED: "

    private var server: IcecastServer!

    override func setUp() async throws {
        guard ProcessInfo.processInfo.environment[Self.insideVariable] != nil else {
            throw XCTSkip("runs inside the network namespace UPnPCastTests creates")
        }
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private func startOton(
        timeoutSeconds: Int = 5, extraPlugins: String = "", extraStations: String = "",
        environment: [String: String?] = [:]
    ) async throws -> (OtonProcess, ControlClient) {
        _ = try await server.startSource(mount: "/cast.mp3", format: .mp3, initialTitle: "Cast Artist - Cast Song", stationName: "Cast FM")
        _ = try await server.startSource(mount: "/second.mp3", format: .mp3, initialTitle: "Other Artist - Second Song", stationName: "Second FM")
        let plugins = """
            {"stations": [{"name": "Cast FM", "url": "\(server.url(mount: "/cast.mp3"))"},
                          {"name": "Second FM", "url": "\(server.url(mount: "/second.mp3"))"}\(extraStations)],
             "plugins": [{"id": "org.oton.upnp", "path": "libOtonUPnP.so", "isolation": "process",
                          "config": {"interface": "\(Self.interface)", "timeout_seconds": \(timeoutSeconds)}}\(extraPlugins)]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Cast FM", "--headless"], plugins: plugins, environment: environment)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(
            events.waitForEvent("track", timeout: 60) { $0["title"] == "Cast Song" && $0["codec"] != nil },
            "the station plays locally first: \(oton.directory.read("stderr.log"))")
        return (oton, events)
    }

    /// Polls `cast list` until a line contains `name` (SSDP announcements come every few seconds).
    private func waitForRenderer(_ oton: OtonProcess, _ name: String, timeout: TimeInterval = 90) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try oton.ctl(["cast", "list"]).stdout
            if last.contains(name) { return last }
            usleep(500_000)
        }
        XCTFail("no renderer \(name) in `cast list` after \(timeout) s: \(last)\n\(oton.directory.read("stderr.log"))")
        return last
    }

    /// One SOAP action sent straight to gmediarender's AVTransport (not through the plugin).
    private func avTransport(port: UInt16, _ action: String) throws -> String {
        let body = """
            <?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body><u:\(action) xmlns:u="urn:schemas-upnp-org:service:AVTransport:1"><InstanceID>0</InstanceID></u:\(action)></s:Body></s:Envelope>
            """
        let result = try runProcess(
            "/usr/bin/curl",
            [
                "-s", "-m", "10", "-H", "Content-Type: text/xml; charset=\"utf-8\"",
                "-H", "SOAPACTION: \"urn:schemas-upnp-org:service:AVTransport:1#\(action)\"",
                "--data-binary", body, "http://\(Self.address):\(port)/upnp/control/rendertransport1",
            ])
        return result.stdout
    }

    private func startRenderer(_ name: String, port: UInt16, extra: [String] = []) throws -> ManagedProcess {
        let log = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/null"))
        let renderer = ManagedProcess(
            name: "gmediarender", executable: "/usr/bin/gmediarender",
            arguments: [
                "-I", Self.interface, "-f", name, "-u", UUID().uuidString.lowercased(), "--port", String(port),
                "--gstout-audiosink=fakesink",
            ] + extra,
            stdout: log, stderr: log)
        try renderer.start()
        addTeardownBlock { renderer.stop() }
        // libupnp retries its bind until the veth's addresses settle; its description answers when it is up.
        let url = "http://\(Self.address):\(port)/description.xml"
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (try? runProcess("/usr/bin/curl", ["-sf", "-m", "5", "-o", "/dev/null", url]))?.status != 0 {
            usleep(200_000)
        }
        return renderer
    }

    func testCastingToGmediarenderAndBack() async throws {
        _ = try startRenderer("Oton Test Renderer", port: 49494)
        _ = try startRenderer("No MP3 Renderer", port: 49500, extra: ["--mime-filter", "-audio/mpeg,-audio/mp3,-audio/x-mpeg"])
        // MPRIS (on a private session bus) and the web remote show what is cast.
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let remotePort = try FreePort.allocate()
        let (oton, events) = try await startOton(
            extraPlugins: """
                ,
                {"id": "org.oton.now-playing", "path": "libOtonNowPlaying.so", "config": {"notifications": false}},
                {"id": "org.oton.web-remote", "path": "libOtonWebRemote.so", "config": {"listen": "127.0.0.1:\(remotePort)"}}
                """, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let remoteURL = try XCTUnwrap(try oton.ctl(["web-remote", "url"]).stdout.split(separator: "\n").first.map(String.init))
        let stateURL = remoteURL.replacingOccurrences(of: "/?token=", with: "/state?token=")
        let searchStarted = Date()
        let list = try waitForRenderer(oton, "Oton Test Renderer")
        print(String(format: "UPNP FIGURE: renderer listed %.2f s after oton's control socket", Date().timeIntervalSince(searchStarted)))
        XCTAssertTrue(list.contains("\(Self.address):49494"), "the list names the renderer's address: \(list)")
        _ = try waitForRenderer(oton, "No MP3 Renderer")

        // A renderer that cannot play the stream's format is said so, and nothing changes.
        let refused = try oton.ctl(["cast", "to", "No MP3 Renderer"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("No MP3 Renderer cannot play this station's stream (MP3)"), refused.stderr + refused.stdout)
        XCTAssertTrue(try oton.ctl(["status"]).stdout.hasPrefix("playing"), "local playback goes on")

        let listenersBefore = try await server.status().mount("/cast.mp3")?.listeners ?? 0
        let castStarted = Date()
        let cast = try oton.ctl(["cast", "to", "Oton Test Renderer"])
        print(String(format: "UPNP FIGURE: `cast to` answered in %.2f s", Date().timeIntervalSince(castStarted)))
        XCTAssertEqual(cast.status, 0, cast.stderr + oton.directory.read("stderr.log"))
        XCTAssertTrue(cast.stdout.contains("casting Cast FM to Oton Test Renderer (audio/mpeg)"), cast.stdout)
        var castEvent: [String: String]?
        let paused = events.waitForEvent("state", timeout: 30, where: { $0["state"] == "paused" }) { event in
            // (with timeshift the pause is a hold, at once: "paused" may come before "casting")
            if event.kind == "org.oton.cast.state", event.fields["state"] == "casting" { castEvent = event.fields }
        }
        XCTAssertNotNil(paused, "local playback pauses while casting")
        if castEvent == nil { castEvent = events.waitForEvent("org.oton.cast.state", timeout: 10) { $0["state"] == "casting" } }
        XCTAssertEqual(castEvent?["state"], "casting")
        XCTAssertEqual(castEvent?["renderer"], "Oton Test Renderer")
        XCTAssertEqual(castEvent?["url"], server.url(mount: "/cast.mp3").absoluteString)

        // The renderer itself says what it plays, asked without the plugin.
        try await pollUntilTrue(timeout: 60, interval: 0.1, "gmediarender says PLAYING") { [self] in
            (try? avTransport(port: 49494, "GetTransportInfo"))?.contains("<CurrentTransportState>PLAYING</CurrentTransportState>") == true
        }
        print(String(format: "UPNP FIGURE: renderer PLAYING %.2f s after `cast to` began", Date().timeIntervalSince(castStarted)))
        let media = try avTransport(port: 49494, "GetMediaInfo")
        XCTAssertTrue(media.contains("<CurrentURI>\(server.url(mount: "/cast.mp3").absoluteString)</CurrentURI>"), media)
        XCTAssertTrue(media.contains("Cast Song"), "the DIDL-Lite title: \(media)")
        XCTAssertTrue(media.contains("Cast FM"), "the station as the album: \(media)")

        // It fetches the mount itself: Icecast counts a listener that is not oton (whose User-Agent is "oton/…").
        let server = self.server!
        try await pollUntilTrue(timeout: 60, interval: 0.5, "a listener other than oton (listeners before: \(listenersBefore))") {
            let clients = (try? await server.get("/admin/listclients?mount=/cast.mp3", admin: true).text) ?? ""
            let agents = clients.components(separatedBy: "<UserAgent>").dropFirst().map { $0.components(separatedBy: "</UserAgent>")[0] }
            return agents.contains { !$0.hasPrefix("oton/") }
        }
        let listenersCasting = try await server.status().mount("/cast.mp3")?.listeners ?? 0
        XCTAssertGreaterThanOrEqual(listenersCasting, 1)
        try await pollUntilTrue(timeout: 30, interval: 0.2, "MPRIS says where it is cast") {
            try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", "xesam:comment"]).stdout.contains("Casting to Oton Test Renderer")
        }
        try await pollUntilTrue(timeout: 30, interval: 0.2, "the web remote says where it is cast") {
            (try? runProcess("/usr/bin/curl", ["-s", "-m", "5", stateURL]))?.stdout
                .contains(#""cast":{"renderer":"Oton Test Renderer","url":"\#(server.url(mount: "/cast.mp3").absoluteString)"}"#) == true
        }
        let status = try oton.ctl(["cast", "status"])
        XCTAssertTrue(status.stdout.contains("casting to Oton Test Renderer (PLAYING)"), status.stdout + status.stderr)

        // A station switch while casting: the renderer takes the new station, local playback pauses again.
        XCTAssertEqual(try oton.ctl(["station", "Second FM"]).status, 0)
        let second = server.url(mount: "/second.mp3").absoluteString
        var pausedAgain = false
        XCTAssertNotNil(
            events.waitForEvent("org.oton.cast.state", timeout: 60, where: { $0["url"] == second && $0["state"] == "casting" }) {
                if $0.kind == "state", $0.fields["state"] == "paused" { pausedAgain = true }  // a timeshift hold can come first
            }, "the renderer was handed the new station: \(oton.directory.read("stderr.log"))")
        try await pollUntilTrue(timeout: 60, interval: 0.5, "gmediarender plays the second station") { [self] in
            let media = (try? avTransport(port: 49494, "GetMediaInfo")) ?? ""
            let transport = (try? avTransport(port: 49494, "GetTransportInfo")) ?? ""
            return media.contains("<CurrentURI>\(second)</CurrentURI>") && media.contains("Second Song")
                && transport.contains("<CurrentTransportState>PLAYING</CurrentTransportState>")
        }
        if !pausedAgain {
            XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "paused" }, "local playback paused again after the switch")
        }

        let stop = try oton.ctl(["cast", "stop"])
        XCTAssertEqual(stop.status, 0, stop.stderr)
        XCTAssertTrue(stop.stdout.contains("stopped casting to Oton Test Renderer; local playback resumed"), stop.stdout)
        XCTAssertNotNil(events.waitForEvent("state", timeout: 60) { $0["state"] == "playing" }, "local playback resumes")
        XCTAssertTrue(try oton.ctl(["status"]).stdout.contains("Second FM"), "on the station cast last")
        try await pollUntilTrue(timeout: 30, interval: 0.2, "the web remote no longer says it is cast") {
            let state = (try? runProcess("/usr/bin/curl", ["-s", "-m", "5", stateURL]))?.stdout ?? ""
            return state.contains(#""state":"playing""#) && !state.contains(#""cast""#)
        }
        XCTAssertFalse(try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", "xesam:comment"]).stdout.contains("Casting"), "nor MPRIS")
        try await pollUntilTrue(timeout: 30, interval: 0.5, "gmediarender says STOPPED") { [self] in
            (try? avTransport(port: 49494, "GetTransportInfo"))?.contains("<CurrentTransportState>STOPPED</CurrentTransportState>") == true
        }
        // The worker's memory after a cast and back, for its memory limit's margin (see the huge description's test).
        for pid in Self.descendants(of: oton.process.processIdentifier) where Self.commandLine(pid).contains("--worker") {
            print(
                "UPNP FIGURE: worker after casting: VmHWM \((Self.statusKiB(pid, "VmHWM") ?? 0) / 1024) MiB, VmData \((Self.statusKiB(pid, "VmData") ?? 0) / 1024) MiB"
            )
        }
        print(Self.passedMarker + "testCastingToGmediarenderAndBack")
    }

    func testCastingATitlelessOggStation() async throws {
        _ = try await server.startSource(mount: "/quiet.ogg", format: .ogg, initialTitle: "", stationName: "Quiet Ogg")
        let ogg = server.url(mount: "/quiet.ogg").absoluteString
        _ = try startRenderer("Oton Ogg Renderer", port: 49496)
        let (oton, events) = try await startOton(extraStations: #", {"name": "Quiet Ogg", "url": "\#(ogg)"}"#)
        _ = try waitForRenderer(oton, "Oton Ogg Renderer")

        // Played locally, the titleless Ogg station's codec is known.
        XCTAssertEqual(try oton.ctl(["station", "Quiet Ogg"]).status, 0)
        XCTAssertNotNil(
            events.waitForEvent("track", timeout: 60) { $0["codec"] == "Vorbis" && $0["stream_url"] == ogg },
            "a track event names the codec of a titleless Ogg station: \(oton.directory.read("stderr.log"))")
        let status = try oton.connect().send(["status"])["data"]
        XCTAssertEqual(status?["codec"]?.stringValue, "Vorbis", "ctl --json status: \(String(describing: status))")
        let cast = try oton.ctl(["cast", "to", "Oton Ogg Renderer"])
        XCTAssertEqual(cast.status, 0, cast.stderr)
        XCTAssertTrue(cast.stdout.contains("(audio/ogg)"), "the format is known: \(cast.stdout)")
        XCTAssertFalse(cast.stdout.contains("format unknown"), cast.stdout)
        try await pollUntilTrue(timeout: 30, interval: 0.2, "local playback pauses while casting") {
            (try? oton.ctl(["status"]))?.stdout.hasPrefix("paused") == true
        }

        // Away to an MP3 station and back to the Ogg one while casting: the renderer follows each time.
        for (station, url) in [("Cast FM", server.url(mount: "/cast.mp3").absoluteString), ("Quiet Ogg", ogg)] {
            XCTAssertEqual(try oton.ctl(["station", station]).status, 0)
            var pausedAgain = false
            XCTAssertNotNil(
                events.waitForEvent("org.oton.cast.state", timeout: 60, where: { $0["url"] == url && $0["state"] == "casting" }) {
                    if $0.kind == "state", $0.fields["state"] == "paused" { pausedAgain = true }  // a timeshift hold can come first
                }, "the renderer was handed \(station): \(oton.directory.read("stderr.log"))")
            if !pausedAgain {
                XCTAssertNotNil(events.waitForEvent("state", timeout: 30) { $0["state"] == "paused" }, "not played locally beside the renderer: \(station)")
            }
            try await pollUntilTrue(timeout: 60, interval: 0.5, "gmediarender plays \(station)") { [self] in
                ((try? avTransport(port: 49496, "GetMediaInfo")) ?? "").contains("<CurrentURI>\(url)</CurrentURI>")
            }
        }
        try await pollUntilTrue(timeout: 30, interval: 0.2, "one station plays: the renderer's") {
            (try? oton.ctl(["status"]))?.stdout.hasPrefix("paused") == true
        }
        print(Self.passedMarker + "testCastingATitlelessOggStation")
    }

    func testHostileRenderers() async throws {
        let hostile = try HostileRenderers(self)
        let (oton, _) = try await startOton(timeoutSeconds: 3)
        let list = try waitForRenderer(oton, "Evil[31mRed TV")
        _ = try waitForRenderer(oton, String(repeating: "A", count: 64) + "…")
        XCTAssertFalse(list.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }, "no control characters: \(list.debugDescription)")
        XCTAssertTrue(list.contains("Evil[31mRed TV]0;owned\t"), list.debugDescription)
        XCTAssertLessThan(list.utf8.count, 2000, "a 100 KB name is cut to a line")

        let fault = try oton.ctl(["cast", "to", "Evil[31mRed TV]0;owned"])
        XCTAssertNotEqual(fault.status, 0)
        XCTAssertTrue(fault.stderr.contains("refused GetProtocolInfo: UPnP error 701 (Transition not available)"), fault.stderr)

        let started = Date()
        let hang = try oton.ctl(["cast", "to", "uuid:0071c0de-4a49-4000-8000-000000000000"])
        let seconds = Date().timeIntervalSince(started)
        print(String(format: "UPNP FIGURE: a silent renderer's `cast to` failed after %.2f s (timeout_seconds 3)", seconds))
        XCTAssertNotEqual(hang.status, 0)
        XCTAssertTrue(hang.stderr.contains("did not answer GetProtocolInfo within 3 s"), hang.stderr)
        XCTAssertTrue(
            hang.stderr.hasPrefix("oton: " + String(repeating: "A", count: 64) + "… did not answer"),
            "the renderer is named, cut short: \(hang.stderr.prefix(200))")
        XCTAssertGreaterThan(seconds, 2.5)
        XCTAssertLessThan(seconds, 20, "the deadline holds")
        XCTAssertGreaterThan(hostile.requests("POST /hang/cm"), 0, "the call reached the silent renderer")
        XCTAssertTrue(try oton.ctl(["status"]).stdout.hasPrefix("playing"), "nothing paused local playback")
        XCTAssertTrue(try oton.ctl(["cast", "list"]).status == 0, "the plugin still answers")
        // The descriptions hold ESC and BEL, which are not XML: libxml2's complaints quoting them
        // reach oton's stderr cleaned (no control character), on a line each, a few per minute.
        let stderr = oton.directory.read("stderr.log")
        XCTAssertFalse(stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "no raw escapes on stderr: \(stderr.debugDescription)")
        XCTAssertTrue(stderr.contains("UPnP: a device on the network sent XML that does not parse"), stderr)
        let xmlLines = stderr.split(separator: "\n").filter { $0.contains("sent XML that does not parse") }
        XCTAssertLessThanOrEqual(xmlLines.count, 10, "bounded while the renderers announce every second: \(xmlLines)")
        print(Self.passedMarker + "testHostileRenderers")
    }
}

extension UPnPNamespaceScenarios {
    func testARendererWithAHugeDescriptionCostsThePluginItsProcessNotOtonItsMemory() async throws {
        let (oton, _) = try await startOton()
        let otonPID = oton.process.processIdentifier
        // The worker at rest, for the figures (the limit must leave room above it).
        let idle = Self.descendants(of: otonPID).filter { Self.commandLine($0).contains("--worker") }
        print(
            "UPNP FIGURE: idle worker "
                + idle.map { "VmHWM \((Self.statusKiB($0, "VmHWM") ?? 0) / 1024) MiB, VmData \((Self.statusKiB($0, "VmData") ?? 0) / 1024) MiB" }.joined(
                    separator: "; "))
        let hostile = try HostileRenderers(self, hugeMegabytes: 200)
        var workerPeakKiB = 0, workerPeakDataKiB = 0, otonPeakKiB = 0, workers = Set<pid_t>()
        let deadline = Date().addingTimeInterval(180)
        var restarted = false
        while Date() < deadline, !restarted {
            for pid in Self.descendants(of: otonPID) where Self.commandLine(pid).contains("--worker") {
                workers.insert(pid)
                workerPeakKiB = max(workerPeakKiB, Self.statusKiB(pid, "VmHWM") ?? 0)
                workerPeakDataKiB = max(workerPeakDataKiB, Self.statusKiB(pid, "VmData") ?? 0)
            }
            otonPeakKiB = max(otonPeakKiB, Self.statusKiB(otonPID, "VmHWM") ?? 0)
            restarted =
                hostile.requests("GET /huge.xml") > 0
                && oton.directory.read("stderr.log").contains("plugin org.oton.upnp restarted in a new process")
            usleep(50_000)
        }
        let log = oton.directory.read("stderr.log")
        print(
            "UPNP FIGURE: huge description: worker peak VmHWM \(workerPeakKiB / 1024) MiB, VmData \(workerPeakDataKiB / 1024) MiB; oton VmHWM \(otonPeakKiB / 1024) MiB; workers seen \(workers.count); \(hostile.requests("GET /huge.xml")) fetches"
        )
        XCTAssertTrue(restarted, "the worker died at its limit and was restarted: \(log.suffix(3000))")
        let crash = log.split(separator: "\n").first { $0.contains("plugin org.oton.upnp ") && $0.contains("restarting in") }
        print("UPNP FIGURE: crash line: \(crash ?? "none")")
        XCTAssertNotNil(crash, "the worker's death is logged as a crash oton restarts: \(log.suffix(3000))")
        let limitKiB = Int(IsolatedPluginProcess.memoryLimitBytes >> 10)
        XCTAssertLessThan(workerPeakKiB, limitKiB + (100 << 10), "the worker's resident peak stays near its data limit")
        XCTAssertLessThan(otonPeakKiB, 300 << 10, "oton's own memory stays small")
        let playing = Date().addingTimeInterval(60)
        while Date() < playing, (try? oton.ctl(["status"]).stdout.hasPrefix("playing")) != true { usleep(200_000) }
        XCTAssertTrue(try oton.ctl(["status"]).stdout.hasPrefix("playing"), "playback goes on")
        print(Self.passedMarker + "testARendererWithAHugeDescriptionCostsThePluginItsProcessNotOtonItsMemory")
    }

    /// Every process below `pid` (its children, theirs, …), from /proc/PID/task/*/children.
    static func descendants(of pid: pid_t) -> [pid_t] {
        var found: [pid_t] = [], queue = [pid]
        while let next = queue.popLast() {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(next)/task")) ?? []
            for task in tasks {
                let text = (try? String(contentsOfFile: "/proc/\(next)/task/\(task)/children", encoding: .utf8)) ?? ""
                let children = text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                found += children
                queue += children
            }
        }
        return found
    }

    static func commandLine(_ pid: pid_t) -> String {
        let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }

    /// A "KEY: n kB" line of /proc/PID/status, in KiB; nil when the process is gone.
    static func statusKiB(_ pid: pid_t, _ key: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
}

/// Tests/Fixtures/hostile_renderer.py on the namespace's interface: two renderers announced by
/// SSDP, one answering SOAP faults with a name full of escape sequences, one that never answers
/// with a name of 100 000 characters.
final class HostileRenderers: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []

    /// `hugeMegabytes`: the one renderer instead, whose description is that many MiB.
    init(_ testCase: XCTestCase, hugeMegabytes: Int? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            [TestPaths.root + "/Tests/Fixtures/hostile_renderer.py", UPnPNamespaceScenarios.address] + (hugeMegabytes.map { [String($0)] } ?? [])
        process.standardOutput = output
        process.standardInput = input  // the script exits when this closes
        process.standardError = FileHandle.standardError
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            guard let self else { return }
            lock.withLock { lines += text.split(separator: "\n").map(String.init) }
        }
    }

    func requests(_ prefix: String) -> Int {
        lock.withLock { lines.filter { $0.hasPrefix("REQUEST " + prefix) }.count }
    }
}
