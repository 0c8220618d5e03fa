import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A desktop for one test: a real X server (Xvfb) of a given size, a private D-Bus session bus and
/// the AT-SPI accessibility bus on it (at-spi-bus-launcher, its dbus-daemon and at-spi2-registryd),
/// so a GTK program draws for real and a screen-reader client (pyatspi) can read and drive it.
/// Nothing reaches the user's display or buses; `stop()` ends every process it started.
public final class DesktopSession: @unchecked Sendable {
    public let display: String
    public let bus: PrivateSessionBus
    public let directory: URL
    private let xvfb: ManagedProcess
    private let accessibility: ManagedProcess

    private init(display: String, bus: PrivateSessionBus, directory: URL, xvfb: ManagedProcess, accessibility: ManagedProcess) {
        self.display = display
        self.bus = bus
        self.directory = directory
        self.xvfb = xvfb
        self.accessibility = accessibility
    }

    /// Starts Xvfb with one screen of `width`×`height`, the session bus and the AT-SPI bus, and waits until each answers.
    public static func start(width: Int, height: Int) async throws -> DesktopSession {
        let directory = try makeTemporaryDirectory(prefix: "oton-desktop")
        // Xvfb picks a free display number itself and writes it to the descriptor -displayfd names.
        let numberPipe = Pipe()
        let xvfb = ManagedProcess(
            name: "Xvfb", executable: "/usr/bin/Xvfb",
            arguments: ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"],
            stdout: numberPipe.fileHandleForWriting,
            stderr: try logFileHandle(directory.appendingPathComponent("xvfb.log")))
        try xvfb.start()
        try? numberPipe.fileHandleForWriting.close()
        let reader = numberPipe.fileHandleForReading.fileDescriptor
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        var written = ""
        let number: String
        do {
            number = try await pollUntil(timeout: 60, "Xvfb to name its display") {
                guard xvfb.isRunning else { throw FixtureError("Xvfb exited: \(Self.read(directory, "xvfb.log"))") }
                var buffer = [UInt8](repeating: 0, count: 32)
                let count = Glibc.read(reader, &buffer, buffer.count)
                if count > 0 { written += String(decoding: buffer[0..<count], as: UTF8.self) }
                return written.hasSuffix("\n") ? written.trimmingCharacters(in: .whitespacesAndNewlines) : nil
            }
        } catch {
            xvfb.stop()
            throw error
        }
        let bus: PrivateSessionBus
        do { bus = try await PrivateSessionBus.start() } catch { xvfb.stop(); throw error }
        var environment = bus.environment
        environment["DISPLAY"] = ":\(number)"
        let accessibility = ManagedProcess(
            name: "at-spi-bus-launcher", executable: "/usr/libexec/at-spi-bus-launcher",
            arguments: ["--launch-immediately", "--a11y=1"], environment: environment,
            stderr: try logFileHandle(directory.appendingPathComponent("at-spi.log")))
        let session = DesktopSession(display: ":\(number)", bus: bus, directory: directory, xvfb: xvfb, accessibility: accessibility)
        do {
            try accessibility.start()
            try await pollUntilTrue(timeout: 60, "the AT-SPI bus (org.a11y.Bus) on the session bus") {
                guard accessibility.isRunning else { throw FixtureError("at-spi-bus-launcher exited: \(Self.read(directory, "at-spi.log"))") }
                return try bus.hasOwner("org.a11y.Bus")
            }
            // Assistive technologies are on: toolkits export their widgets.
            _ = try bus.run(
                "/usr/bin/dbus-send",
                [
                    "--print-reply", "--dest=org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties.Set",
                    "string:org.a11y.Status", "string:IsEnabled", "variant:boolean:true",
                ])
        } catch {
            session.stop()
            throw error
        }
        return session
    }

    /// What a program on this desktop needs: DISPLAY, the session bus, no Wayland.
    public var environment: [String: String] {
        var environment = bus.environment
        environment["DISPLAY"] = display
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    /// A PNG of the whole screen (ImageMagick's `import`).
    public func screenshot(to path: String) throws {
        let result = try bus.run("/usr/bin/env", ["DISPLAY=\(display)", "import", "-window", "root", path], timeout: 60)
        guard result.status == 0 else { throw FixtureError("import failed: \(result.stderr)") }
    }

    /// Ends the AT-SPI processes (the launcher, its bus, the registry), the bus and Xvfb. Idempotent.
    public func stop() {
        let launcher = accessibility.pid
        let children = launcher > 0 ? Self.descendants(of: launcher) : []
        accessibility.stop()
        for pid in children { Glibc.kill(pid, SIGKILL) }
        bus.stop()
        xvfb.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// Every process below `pid` (read from /proc), deepest last.
    public static func descendants(of pid: Int32) -> [Int32] {
        var parents: [Int32: [Int32]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[parent, default: []].append(child) }
        }
        var found: [Int32] = []
        var queue = [pid]
        while let next = queue.popLast() {
            for child in parents[next] ?? [] {
                found.append(child)
                queue.append(child)
            }
        }
        return found
    }

    private static func read(_ directory: URL, _ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }
}
