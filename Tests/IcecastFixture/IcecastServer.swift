import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real Icecast2 server on 127.0.0.1 (free port, fresh temp dir), for integration tests.
///
///     let server = try await IcecastServer.start()
///     defer { server.stop() }
///     let src = try await server.startSource(mount: "/test.mp3", format: .mp3,
///                                            initialTitle: "Artist A - Song One")
///     try await server.setTitle(mount: "/test.mp3", title: "Artist B - Song Two")
///
/// icecast2 refuses to run as root, so when the test runs as root the server is
/// started as uid/gid 65534 (nobody/nogroup) through `setpriv`; as a normal user
/// it runs as that user. Either way `setpriv --pdeathsig KILL` makes the kernel
/// kill it if the test process dies.
public final class IcecastServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var sourcePassword = "oton-source"
        public var adminUser = "admin"
        public var adminPassword = "oton-admin"
        /// Icecast default is on with 64 KiB. With burst, a new Ogg listener first
        /// receives the chains (titles) of the last ~64 KiB before the current one.
        public var burstOnConnect = true
        public var burstSize = 65_535
        public var maxSources = 16
        /// Seconds icecast waits for data from a silent source before dropping it.
        public var sourceTimeout = 10
        public var startTimeout: TimeInterval = 10
        public var icecastExecutable = "/usr/bin/icecast2"
        public var webroot = "/usr/share/icecast2/web"
        public var adminroot = "/usr/share/icecast2/admin"
        public init() {}
    }

    public let configuration: Configuration
    public let port: UInt16
    /// Temp dir holding icecast.xml, logs and source logs (removed by `stop()`
    /// unless the environment variable OTON_KEEP_FIXTURE_LOGS is set).
    public let directory: URL
    private let process: ManagedProcess
    private let sources = LockedValue<[IcecastSource]>([])
    private let stopped = LockedValue(false)

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public func url(mount: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(mount)")! }

    private init(configuration: Configuration, port: UInt16, directory: URL, process: ManagedProcess) {
        self.configuration = configuration
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Starts icecast2 and waits until `/status-json.xsl` answers with valid JSON.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> IcecastServer {
        var lastError: Error = FixtureError("icecast did not start")
        for _ in 0..<3 {  // retry with another port if the free port got taken meanwhile
            let server = try launch(configuration)
            do {
                try await server.waitUntilReady()
                return server
            } catch {
                lastError = error
                server.stop()
            }
        }
        throw lastError
    }

    private static func launch(_ configuration: Configuration) throws -> IcecastServer {
        let port = try FreePort.allocate()
        let dir = try makeTemporaryDirectory(prefix: "oton-icecast")
        let logDir = dir.appendingPathComponent("log", isDirectory: true)
        try FileManager.default.createDirectory(at: logDir, withIntermediateDirectories: false)
        if geteuid() == 0 {
            // icecast runs as nobody: it must be able to write logs and the pid file.
            chown(dir.path, 65534, 65534)
            chown(logDir.path, 65534, 65534)
        }
        let configURL = dir.appendingPathComponent("icecast.xml")
        try makeConfig(configuration, port: port, dir: dir, logDir: logDir)
            .write(to: configURL, atomically: true, encoding: .utf8)
        let output = try logFileHandle(dir.appendingPathComponent("icecast.stdout.log"))
        let process = ManagedProcess(
            name: "icecast2", executable: configuration.icecastExecutable,
            arguments: ["-c", configURL.path], runAsNobody: true, stdout: output, stderr: output)
        try process.start()
        return IcecastServer(configuration: configuration, port: port, directory: dir, process: process)
    }

    private func waitUntilReady() async throws {
        try await pollUntilTrue(timeout: configuration.startTimeout, "icecast on port \(port) to answer. \(diagnostics())") {
            guard process.isRunning else {
                throw FixtureError("icecast2 exited with status \(process.terminationStatus ?? -1). \(diagnostics())")
            }
            guard let response = try? await SimpleHTTPClient.get(port: port, path: "/status-json.xsl", timeout: 1),
                response.status == 200,
                let status = try? IcecastStatus.parse(response.body)
            else { return false }
            return status.serverID != nil
        }
    }

    /// Kills every source, then icecast (SIGKILL: a test server has nothing to save,
    /// and icecast needs ~1 s to react to SIGTERM), and removes the temp dir. Idempotent.
    public func stop() {
        let wasStopped = stopped.mutate { old -> Bool in
            defer { old = true }; return old
        }
        for source in sources.get() { source.stop() }
        process.kill()
        if !wasStopped && ProcessInfo.processInfo.environment["OTON_KEEP_FIXTURE_LOGS"] == nil {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    deinit { stop() }

    public var isRunning: Bool { process.isRunning }

    // MARK: Status and admin

    /// GET /status-json.xsl, parsed.
    public func status() async throws -> IcecastStatus {
        let response = try await SimpleHTTPClient.get(port: port, path: "/status-json.xsl")
        guard response.status == 200 else { throw FixtureError("status-json.xsl answered \(response.status)") }
        return try IcecastStatus.parse(response.body)
    }

    /// Raw GET against the server (for 404 checks etc.).
    public func get(_ path: String, admin: Bool = false) async throws -> HTTPResponse {
        try await SimpleHTTPClient.get(
            port: port, path: path,
            basicAuth: admin ? (configuration.adminUser, configuration.adminPassword) : nil)
    }

    /// Polls the status until `mount` is listed (and `condition` holds for it).
    @discardableResult
    public func waitForMount(
        _ mount: String, timeout: TimeInterval = 10,
        where condition: @escaping @Sendable (MountStatus) -> Bool = { _ in true }
    ) async throws -> MountStatus {
        try await pollUntil(timeout: timeout, "mount \(mount) to be live. \(diagnostics())") {
            guard let status = try? await self.status(), let m = status.mount(mount), condition(m) else { return nil }
            return m
        }
    }

    /// Polls the status until `mount` is no longer listed.
    public func waitForMountGone(_ mount: String, timeout: TimeInterval = 10) async throws {
        try await pollUntilTrue(timeout: timeout, "mount \(mount) to disappear") {
            guard let status = try? await self.status() else { return false }
            return status.mount(mount) == nil
        }
    }

    /// Changes the live stream title with `/admin/metadata?mode=updinfo`.
    ///
    /// MP3: sends `song=<title>`; listeners get it as ICY `StreamTitle` at the next
    /// metadata interval (16000 bytes; ~1 s at the fixture's 128 kbit/s).
    /// Ogg Vorbis: icecast 2.4 rebuilds the stream: it ends the current logical
    /// stream and starts a new chain whose Vorbis comment header carries the new
    /// ARTIST/TITLE. If `title` contains " - " it is split into `artist=`/`title=`
    /// (otherwise `song=` which sets TITLE only and clears ARTIST).
    public func setTitle(mount: String, title: String) async throws {
        var query = "mount=\(mount.queryEncoded)&mode=updinfo"
        if let pair = Self.splitArtistTitle(title), try await format(of: mount).isOgg {
            query += "&artist=\(pair.0.queryEncoded)&title=\(pair.1.queryEncoded)"
        } else {
            query += "&song=\(title.queryEncoded)"
        }
        query += "&charset=UTF-8"
        try await adminMetadata(query)
    }

    /// Sets artist and title separately (`artist=…&title=…`). On MP3 icecast
    /// turns this into the ICY title "artist - title".
    public func setTitle(mount: String, artist: String, title: String) async throws {
        try await adminMetadata("mount=\(mount.queryEncoded)&mode=updinfo&artist=\(artist.queryEncoded)&title=\(title.queryEncoded)&charset=UTF-8")
    }

    private func adminMetadata(_ query: String) async throws {
        let response = try await get("/admin/metadata?\(query)", admin: true)
        guard response.status == 200, response.text.contains("Metadata update successful") else {
            throw FixtureError("admin/metadata failed (\(response.status)): \(response.text)")
        }
    }

    private func format(of mount: String) async throws -> StreamFormat {
        if let source = sources.get().first(where: { $0.mount == mount }) { return source.format }
        let type = try await status().mount(mount)?.serverType ?? ""
        return type.contains("ogg") ? .ogg : .mp3
    }

    static func splitArtistTitle(_ s: String) -> (String, String)? {
        guard let r = s.range(of: " - ") else { return nil }
        return (String(s[..<r.lowerBound]), String(s[r.upperBound...]))
    }

    // MARK: Sources

    /// Starts a `gst-launch-1.0 audiotestsrc ! encoder ! shout2send` source and
    /// waits until the mount is live with `initialTitle` (an empty one: the source never sends a title).
    /// `amplitude`: the `.mp3` sine's peak, of full scale (nil: 0.1; the other formats keep their own).
    /// `file`: a WAV file played once instead of the tone, encoded as `format` says (.mp3 or .ogg).
    public func startSource(
        mount: String = "/test.mp3",
        format: StreamFormat = .mp3,
        initialTitle: String = "Artist A - Song One",
        stationName: String = "Oton Test FM",
        genre: String = "Test",
        description: String = "Oton integration test stream",
        amplitude: Double? = nil,
        file: String? = nil,
        timeout: TimeInterval = 10
    ) async throws -> IcecastSource {
        let source = IcecastSource(
            server: self, mount: mount, format: format, initialTitle: initialTitle,
            stationName: stationName, genre: genre, description: description, amplitude: amplitude, file: file)
        sources.mutate { $0.append(source) }
        do {
            try await source.launchAndWait(timeout: timeout)
        } catch {
            source.stop()
            throw error
        }
        return source
    }

    // MARK: Diagnostics

    /// Icecast's error.log (useful in failure messages).
    public func errorLog() -> String {
        (try? String(contentsOf: directory.appendingPathComponent("log/error.log"), encoding: .utf8)) ?? ""
    }

    func diagnostics() -> String {
        let tail = errorLog().split(separator: "\n").suffix(8).joined(separator: "\n")
        return "icecast dir: \(directory.path)\nerror.log tail:\n\(tail)"
    }

    private static func makeConfig(_ c: Configuration, port: UInt16, dir: URL, logDir: URL) -> String {
        func x(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        return """
            <icecast>
                <location>Oton test</location>
                <admin>test@localhost</admin>
                <hostname>127.0.0.1</hostname>
                <limits>
                    <clients>100</clients>
                    <sources>\(c.maxSources)</sources>
                    <queue-size>524288</queue-size>
                    <client-timeout>30</client-timeout>
                    <header-timeout>15</header-timeout>
                    <source-timeout>\(c.sourceTimeout)</source-timeout>
                    <burst-on-connect>\(c.burstOnConnect ? 1 : 0)</burst-on-connect>
                    <burst-size>\(c.burstSize)</burst-size>
                </limits>
                <authentication>
                    <source-password>\(x(c.sourcePassword))</source-password>
                    <relay-password>\(x(c.sourcePassword))-relay</relay-password>
                    <admin-user>\(x(c.adminUser))</admin-user>
                    <admin-password>\(x(c.adminPassword))</admin-password>
                </authentication>
                <listen-socket>
                    <port>\(port)</port>
                    <bind-address>127.0.0.1</bind-address>
                </listen-socket>
                <fileserve>1</fileserve>
                <paths>
                    <basedir>\(x(dir.path))</basedir>
                    <logdir>\(x(logDir.path))</logdir>
                    <webroot>\(x(c.webroot))</webroot>
                    <adminroot>\(x(c.adminroot))</adminroot>
                    <pidfile>\(x(dir.appendingPathComponent("icecast.pid").path))</pidfile>
                    <alias source="/" destination="/status.xsl"/>
                </paths>
                <logging>
                    <accesslog>access.log</accesslog>
                    <errorlog>error.log</errorlog>
                    <loglevel>3</loglevel>
                    <logsize>10000</logsize>
                </logging>
                <security>
                    <chroot>0</chroot>
                </security>
            </icecast>

            """
    }
}
