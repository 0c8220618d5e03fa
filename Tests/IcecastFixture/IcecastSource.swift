import Foundation

/// Encoding of a test source.
public enum StreamFormat: String, Sendable {
    /// MPEG-1 Layer 3, 128 kbit/s CBR, titles as ICY metadata.
    case mp3
    /// Ogg Vorbis (~100 kbit/s), titles as Vorbis comments (chained streams).
    case ogg
    /// Like `mp3`, but the tone pauses: 4.4 s of 440 Hz, 0.6 s of silence, every 5 s from the start.
    case mp3WithPauses
    /// Ogg Opus (48 kHz, 96 kbit/s), titles as Opus tags.
    case opus
    /// FLAC in Ogg (44.1 kHz, 16 bit), titles as Vorbis comments.
    case oggFLAC

    var isMP3: Bool { self == .mp3 || self == .mp3WithPauses }
    /// Titles travel in the stream's comment header (a new chain per title), not as ICY metadata.
    public var isOgg: Bool { !isMP3 }
}

/// A `gst-launch-1.0` process feeding one Icecast mount. Created by
/// `IcecastServer.startSource(...)`.
public final class IcecastSource: @unchecked Sendable {
    public let mount: String
    public let format: StreamFormat
    public let stationName: String
    public let genre: String
    public let description: String
    /// The `.mp3` sine's peak as a fraction of full scale; nil: 0.1.
    public let amplitude: Double?
    /// A WAV file played instead of the test tone (once, at its own pace), encoded in `format` (.mp3 or .ogg).
    public let file: String?
    /// Title the pipeline announces when it (re)starts; empty: it sends none (no ICY title, no Vorbis comment).
    public var initialTitle: String { state.get().title }

    /// Weak: the server owns its sources; a handle outliving its server throws.
    private weak var weakServer: IcecastServer?
    private var server: IcecastServer {
        get throws {
            guard let server = weakServer else { throw FixtureError("the IcecastServer of \(mount) is gone") }
            return server
        }
    }
    private let state: LockedValue<(title: String, process: ManagedProcess?, launches: Int)>

    init(
        server: IcecastServer, mount: String, format: StreamFormat, initialTitle: String,
        stationName: String, genre: String, description: String, amplitude: Double? = nil, file: String? = nil
    ) {
        self.amplitude = amplitude
        self.file = file
        self.weakServer = server
        self.mount = mount
        self.format = format
        self.stationName = stationName
        self.genre = genre
        self.description = description
        self.state = LockedValue((initialTitle, nil, 0))
    }

    public var isRunning: Bool { state.get().process?.isRunning ?? false }
    public var pid: Int32? { state.get().process?.pid }

    /// SIGKILL the source (simulates a source crash). Icecast notices the closed
    /// connection and removes the mount; listeners get EOF.
    public func kill() { state.get().process?.kill() }

    /// Graceful stop (SIGTERM, then SIGKILL).
    public func stop() { state.get().process?.stop(grace: 1) }

    /// Kills the current process if still running, waits until icecast has dropped
    /// the mount, starts a new pipeline on the same mount and waits until it is live.
    public func restart(initialTitle: String? = nil, timeout: TimeInterval = 10) async throws {
        if let process = state.get().process, process.isRunning { process.kill() }
        try await server.waitForMountGone(mount, timeout: timeout)
        if let initialTitle { state.mutate { $0.title = initialTitle } }
        try await launchAndWait(timeout: timeout)
    }

    func launchAndWait(timeout: TimeInterval) async throws {
        let server = try self.server
        let (title, launches) = state.mutate { s -> (String, Int) in
            s.launches += 1; return (s.title, s.launches)
        }
        let safeMount = mount.replacingOccurrences(of: "/", with: "_")
        let logURL = server.directory.appendingPathComponent("source\(safeMount)-\(launches).log")
        let log = try logFileHandle(logURL)
        let process = ManagedProcess(
            name: "gst-launch \(mount)", executable: "/usr/bin/gst-launch-1.0",
            arguments: pipeline(title: title, server: server), stdout: log, stderr: log)
        state.mutate { $0.process = process }
        try process.start()

        let expected = expectedStatusTitle(title)
        let describe = { () -> String in
            let out = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            return "source \(self.mount): \(out.suffix(600))\n\(server.diagnostics())"
        }
        try await pollUntilTrue(timeout: timeout, "mount \(mount) live with title \(expected). \(describe())") {
            guard process.isRunning else {
                throw FixtureError("gst-launch for \(self.mount) exited (\(process.terminationStatus ?? -1)). \(describe())")
            }
            guard let status = try? await server.status(), let m = status.mount(mount) else { return false }
            // shout2send may announce "Unknown - Unknown" for an MP3 source without a title: a placeholder, still no title.
            if title.isEmpty { return m.title == nil || (format.isMP3 && m.title == "Unknown - Unknown") }
            if m.title == expected { return true }
            // shout2send announces "Unknown - <title>" when the title has no
            // artist part; correct that through the admin interface.
            if format.isMP3, m.title != nil, m.title != expected {
                try? await server.setTitle(mount: mount, title: title)
            }
            return false
        }
    }

    /// What /status-json.xsl shows as `title` once the source is up.
    private func expectedStatusTitle(_ title: String) -> String {
        if format.isOgg, let pair = IcecastServer.splitArtistTitle(title) { return pair.1 }
        return title
    }

    /// gst-launch-1.0 joins its argv with spaces and re-parses it, so every
    /// value containing spaces or quotes is quoted/escaped here.
    func pipeline(title: String, server: IcecastServer) -> [String] {
        let c = server.configuration
        var tags = "title=\(Self.quote(title))"
        if let pair = IcecastServer.splitArtistTitle(title) {
            tags = "artist=\(Self.quote(pair.0)),title=\(Self.quote(pair.1))"
        }
        // Without a title the pipeline has no taginject: the encoders then write no tags at all.
        let inject = title.isEmpty ? [] : ["taginject", "tags=\(Self.quote(tags))", "!"]
        var args = ["-q", "audiotestsrc", "is-live=true"]
        if let file {
            // The file at the pace it plays (identity sync=true), like a live source.
            let decode = [
                "filesrc", "location=\(Self.quote(file))", "!", "wavparse", "!", "audioconvert", "!", "audioresample", "!",
                "audio/x-raw,rate=44100,channels=2", "!", "identity", "sync=true", "!",
            ]
            let encode =
                format.isMP3
                ? ["lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true"]
                : ["vorbisenc", "quality=0.1", "!", "oggmux", "max-delay=100000000", "max-page-delay=100000000"]
            args = ["-q"] + decode + inject + encode
        } else {
            args += audioTestFormat(inject: inject)
        }
        args += [
            "!", "shout2send", "ip=127.0.0.1", "port=\(server.port)",
            "password=\(Self.quote(c.sourcePassword))", "mount=\(Self.quote(mount))",
            "streamname=\(Self.quote(stationName))", "genre=\(Self.quote(genre))",
            "description=\(Self.quote(description))", "public=false",
        ]
        return args
    }

    /// audiotestsrc's settings and the encoder for `format`.
    private func audioTestFormat(inject: [String]) -> [String] {
        var args: [String] = []
        switch format {
        case .mp3:
            args +=
                [
                    "wave=sine", "volume=\(amplitude ?? 0.1)", "!", "audio/x-raw,rate=44100,channels=2",
                    "!", "audioconvert", "!",
                ] + inject + ["lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true"]
        case .mp3WithPauses:
            // wave=ticks: a tick of 1936 sine periods at 440 Hz (4.4 s) every 5 s, silence between.
            args +=
                [
                    "wave=ticks", "freq=440", "sine-periods-per-tick=1936", "tick-interval=5000000000", "volume=0.3",
                    "!", "audio/x-raw,rate=44100,channels=2",
                    "!", "audioconvert", "!",
                ] + inject + ["lamemp3enc", "target=bitrate", "bitrate=128", "cbr=true"]
        case .ogg:
            // Pink noise keeps Vorbis VBR at ~100 kbit/s; a pure sine compresses to
            // ~25 kbit/s and then Ogg pages (and title changes) take seconds to arrive.
            args +=
                [
                    "wave=pink-noise", "volume=0.05", "!", "audio/x-raw,rate=44100,channels=2",
                    "!", "audioconvert", "!",
                ] + inject + [
                    "vorbisenc", "quality=0.3",
                    "!", "oggmux", "max-delay=100000000", "max-page-delay=100000000",
                ]
        case .opus:
            args +=
                [
                    "wave=pink-noise", "volume=0.05", "!", "audio/x-raw,rate=48000,channels=2",
                    "!", "audioconvert", "!",
                ] + inject + [
                    "opusenc", "bitrate=96000",
                    "!", "oggmux", "max-delay=100000000", "max-page-delay=100000000",
                ]
        case .oggFLAC:
            args +=
                [
                    "wave=sine", "volume=0.1", "!", "audio/x-raw,rate=44100,channels=2,format=S16LE",
                    "!", "audioconvert", "!",
                ] + inject + [
                    "flacenc",
                    "!", "oggmux", "max-delay=100000000", "max-page-delay=100000000",
                ]
        }
        return args
    }

    /// Double-quotes a value for gst-launch / GstStructure syntax.
    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
