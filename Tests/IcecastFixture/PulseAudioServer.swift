import Foundation

/// A private PulseAudio server with one null sink ("oton_test"), on a socket in a folder of the
/// test's, and `parec` recording the sink's monitor: what a listener would hear, as samples.
/// Stopped by `stop()` (call it in a defer).
public final class PulseAudioServer: @unchecked Sendable {
    public let directory: String
    public let environment: [String: String]
    private let daemon: ManagedProcess
    private var recorder: ManagedProcess?
    public static let rate = 48_000

    public static var isInstalled: Bool {
        ["/usr/bin/pulseaudio", "/usr/bin/parec"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = directory + "/native"
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in [
            "PULSE_SERVER": "unix:" + socket, "PULSE_RUNTIME_PATH": directory, "PULSE_STATE_PATH": directory,
            "XDG_RUNTIME_DIR": directory, "HOME": directory,
        ] { environment[key] = value }
        environment["DISPLAY"] = nil
        self.environment = environment
        // Under a shell that waits for it (and hands it SIGTERM): pulseaudio closes every descriptor
        // it inherits, Foundation's pipe that tells it a child ended among them, and Foundation then
        // sat in a blocking waitpid on the living daemon, so no other child of the test was reaped
        // (a later runProcess hung in waitUntilExit). The shell keeps that pipe open until it ends.
        daemon = ManagedProcess(
            name: "pulseaudio", executable: "/bin/sh",
            arguments: [
                "-c", #"trap 'kill "$daemon" 2>/dev/null; wait "$daemon"; exit 0' TERM; "$0" "$@" & daemon=$!; wait "$daemon""#,
                "/usr/bin/pulseaudio",
                "--system=no", "--daemonize=no", "--exit-idle-time=-1", "-n", "--disable-shm=yes",
                "--load=module-native-protocol-unix auth-anonymous=1 socket=" + socket,
                "--load=module-null-sink sink_name=oton_test rate=\(Self.rate) channels=2",
            ], environment: environment)
        try daemon.start()
        // Ready when its socket accepts a connection. (`pactl info` in a loop hung the test in
        // Process.waitUntilExit once; the null sink is the only sink, so it is the default anyway.)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !Self.accepts(socket) { usleep(50_000) }
        guard Self.accepts(socket) else {
            stop()
            throw FixtureError("pulseaudio did not start in \(directory)")
        }
    }

    private static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    /// Starts recording the sink's monitor (mono S16LE at `rate`) into `file`.
    public func record(into file: String) throws {
        FileManager.default.createFile(atPath: file, contents: nil)
        let recorder = ManagedProcess(
            name: "parec", executable: "/usr/bin/parec",
            arguments: [
                "-d", "oton_test.monitor", "--raw", "--format=s16le", "--rate=\(Self.rate)", "--channels=1", "--latency-msec=20",
            ], environment: environment, stdout: FileHandle(forWritingAtPath: file))
        try recorder.start()
        self.recorder = recorder
    }

    /// The recording so far: root mean square of each window, as a fraction of full scale.
    public static func levels(of file: String, windowSeconds: Double) -> [Double] {
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        let window = Int(Double(rate) * windowSeconds)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return stride(from: 0, to: samples.count - window + 1, by: window).map { start in
            let sum = samples[start..<start + window].reduce(0.0) { $0 + Double($1) * Double($1) }
            return (sum / Double(window)).squareRoot() / 32768
        }
    }

    /// Ends parec and the server with SIGKILL: nothing of either needs a clean exit (the recording is read before).
    public func stop() {
        recorder?.kill()
        daemon.kill()
    }
}

/// What the null sink's monitor recorded so far, as samples (mono, `PulseAudioServer.rate`), for
/// tests that measure a stretch of it: the level (RMS) and the peak over sample ranges.
public struct HeardSound: Sendable {
    public let samples: [Int16]

    public init(samples: [Int16]) {
        self.samples = samples
    }

    public init(file: String) {
        let data = FileManager.default.contents(atPath: file) ?? Data()
        samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Samples recorded so far in `file` (without reading them).
    public static func count(in file: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0) / 2
    }

    public static func seconds(_ samples: Int) -> Double { Double(samples) / Double(PulseAudioServer.rate) }
    public static func samples(_ seconds: Double) -> Int { Int(seconds * Double(PulseAudioServer.rate)) }

    /// Root mean square of `range` as a fraction of full scale (0 for an empty range).
    public func rms(_ range: Range<Int>) -> Double {
        let range = range.clamped(to: samples.indices)
        guard !range.isEmpty else { return 0 }
        let sum = samples[range].reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(range.count)).squareRoot() / 32768
    }

    /// The level of a steady sound over `range`: the median of its 100 ms windows' RMS. A loaded
    /// machine's sound server can drop a stretch (an underrun records silence), which pulls a plain
    /// RMS down by tenths of a decibel; the median keeps to what was played while most of it was heard.
    public func steadyLevel(_ range: Range<Int>) -> Double {
        let range = range.clamped(to: samples.indices)
        let window = Self.samples(0.1)
        let levels = stride(from: range.lowerBound, through: range.upperBound - window, by: window).map { rms($0..<$0 + window) }.sorted()
        guard !levels.isEmpty else { return rms(range) }
        return levels.count % 2 == 1 ? levels[levels.count / 2] : (levels[levels.count / 2 - 1] + levels[levels.count / 2]) / 2
    }

    /// The largest magnitude in `range`, as a fraction of full scale.
    public func peak(_ range: Range<Int>) -> Double {
        let range = range.clamped(to: samples.indices)
        return Double(samples[range].map { abs(Int($0)) }.max() ?? 0) / 32768
    }

    /// Where sound starts again after a silence that begins at or after `from`: the first 50 ms
    /// window above `threshold` following one below `silence`. Nil when it has not yet.
    public func soundAfterSilence(from: Int, silence: Double = 0.002, threshold: Double = 0.01) -> Int? {
        let window = Self.samples(0.05)
        var start = from
        var silent = false
        while start + window <= samples.count {
            let level = rms(start..<start + window)
            if !silent { silent = level < silence } else if level > threshold { return start }
            start += window
        }
        return nil
    }
}
