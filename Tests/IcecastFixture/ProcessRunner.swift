import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Errors raised by the fixture.
public struct FixtureError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` until it returns a non-nil value or `timeout` elapses.
/// The interval is only the poll period, never a synchronisation sleep.
public func pollUntil<T: Sendable>(
    timeout: TimeInterval,
    interval: TimeInterval = 0.05,
    _ what: @autoclosure () -> String,
    _ condition: () async throws -> T?
) async throws -> T {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if let value = try await condition() { return value }
        if Date() >= deadline {
            throw FixtureError("timed out after \(timeout)s waiting for \(what())")
        }
        try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
    }
}

/// Boolean convenience for `pollUntil`.
public func pollUntilTrue(
    timeout: TimeInterval,
    interval: TimeInterval = 0.05,
    _ what: @autoclosure () -> String,
    _ condition: () async throws -> Bool
) async throws {
    _ = try await pollUntil(timeout: timeout, interval: interval, what()) {
        try await condition() ? true : nil
    }
}

/// A child process that cannot outlive the test process.
///
/// Every process is launched through `setpriv --pdeathsig KILL --`, so the
/// kernel sends it SIGKILL when the test process dies (even on a crash or
/// SIGKILL). PR_SET_PDEATHSIG fires when the *thread* that forked the child
/// exits, so all spawns happen on one dedicated, never-ending thread
/// (`SpawnThread`) rather than on a Swift-concurrency/dispatch worker thread,
/// which the runtime may retire at any time (that would kill the child early).
///
/// Additionally every live process is tracked in a registry that is killed by
/// an `atexit` handler, and `stop()`/`kill()` are idempotent.
public final class ManagedProcess: @unchecked Sendable {
    public let name: String
    public let arguments: [String]
    private let process = Process()

    /// - Parameters:
    ///   - executable: program to run (looked up on PATH if not absolute).
    ///   - arguments: its arguments (no shell involved).
    ///   - runAsNobody: when the test runs as root, drop to uid/gid 65534 (needed by icecast2).
    ///   - stdout/stderr: where output goes; `nil` = /dev/null.
    public init(
        name: String,
        executable: String,
        arguments: [String],
        runAsNobody: Bool = false,
        environment: [String: String]? = nil,
        stdout: FileHandle? = nil,
        stderr: FileHandle? = nil
    ) {
        self.name = name
        self.arguments = [executable] + arguments
        var wrapper = ["--pdeathsig", "KILL"]
        if runAsNobody && geteuid() == 0 {
            wrapper = ["--reuid=65534", "--regid=65534", "--clear-groups"] + wrapper
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = wrapper + ["--", executable] + arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
    }

    /// Launches the process (on the dedicated spawn thread).
    public func start() throws {
        let box = UncheckedBox(process)
        try SpawnThread.shared.sync { try box.value.run() }
        ProcessRegistry.shared.add(self)
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var terminationStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// SIGKILL and wait (bounded) for the exit to be reaped.
    public func kill() { signalAndWait(SIGKILL, grace: 5) }

    /// SIGTERM, wait up to `grace` seconds, then SIGKILL. Idempotent.
    public func stop(grace: TimeInterval = 2) {
        signalAndWait(SIGTERM, grace: grace)
        if process.isRunning { signalAndWait(SIGKILL, grace: 5) }
    }

    private func signalAndWait(_ signal: Int32, grace: TimeInterval) {
        defer { if !process.isRunning { ProcessRegistry.shared.remove(self) } }
        guard process.processIdentifier > 0, process.isRunning else { return }
        _ = Glibc.kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(5_000) }
    }

    /// Blocks (bounded) until the process has exited on its own.
    public func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        return !process.isRunning
    }

    deinit {
        if process.processIdentifier > 0 && process.isRunning {
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
        }
    }
}

struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// One thread that lives as long as the test process and performs every spawn.
final class SpawnThread: @unchecked Sendable {
    static let shared = SpawnThread()
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []

    private init() {
        let thread = Thread { [self] in self.loop() }
        thread.name = "IcecastFixture.spawn"
        thread.start()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    func sync(_ body: @escaping @Sendable () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let result = LockedValue<Error?>(nil)
        condition.lock()
        jobs.append {
            do { try body() } catch { result.set(error) }
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        if let error = result.get() { throw error }
    }
}

/// Small lock-protected value for sharing state across threads.
public final class LockedValue<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    public init(_ value: T) { self.value = value }
    public func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
    public func set(_ newValue: T) { lock.lock(); value = newValue; lock.unlock() }
    @discardableResult
    public func mutate<R>(_ body: (inout T) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
}

/// Kills whatever is still alive when the test process exits normally.
final class ProcessRegistry: @unchecked Sendable {
    static let shared = ProcessRegistry()
    private let lock = NSLock()
    private var pids: [ObjectIdentifier: Int32] = [:]

    private init() {
        atexit { ProcessRegistry.shared.killAll() }
    }

    func add(_ p: ManagedProcess) { lock.lock(); pids[ObjectIdentifier(p)] = p.pid; lock.unlock() }
    func remove(_ p: ManagedProcess) { lock.lock(); pids[ObjectIdentifier(p)] = nil; lock.unlock() }

    func killAll() {
        lock.lock(); let all = Array(pids.values); pids.removeAll(); lock.unlock()
        for pid in all where pid > 0 { _ = Glibc.kill(pid, SIGKILL) }
    }
}

/// Creates a fresh private temporary directory.
func makeTemporaryDirectory(prefix: String) throws -> URL {
    var template = Array((NSTemporaryDirectory() + "/\(prefix).XXXXXX").utf8CString)
    guard let result = mkdtemp(&template) else { throw FixtureError("mkdtemp failed: errno \(errno)") }
    return URL(fileURLWithPath: String(cString: result), isDirectory: true)
}

/// Opens (creating/truncating) a file for writing process output.
func logFileHandle(_ url: URL) throws -> FileHandle {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    return try FileHandle(forWritingTo: url)
}
