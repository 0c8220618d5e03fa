import Dispatch
import Foundation
import Logging
import PluginAPI

/// A plugin with `"isolation": "process"`: it runs in a child process (`oton plugin-host`) and this
/// proxy stands in for it on oton's bus. Events and media reach the proxy through a bounded mailbox
/// like any plugin's (a slow child loses them there, counted, with DISCONT on the next buffer) and
/// go down the socket; what the plugin publishes, requests and runs comes back up and takes the
/// same paths as an in-process plugin's.
///
/// A crash (the socket ends) or a hang (no answer to a ping within ``hangSeconds``, then SIGKILL) is
/// logged with the plugin's id and the signal, and the child is started again after 1, 2, 4, 8 s;
/// after ``crashLimit`` crashes within ``crashWindowSeconds`` it stays off, said once. Playback and
/// the other plugins never wait for it.
///
/// Threading: the mailbox thread writes events and media; a reader thread handles the child's
/// frames; a watchdog thread pings; commands come from control-client threads.
final class IsolatedPlugin: MailboxConsumer, @unchecked Sendable {
    static let restartDelays: [Double] = [1, 2, 4, 8]
    static let crashLimit = 5
    static let crashWindowSeconds = 600.0
    static let hangSeconds = 10.0
    static let startSeconds = 20.0

    let entry: PluginEntry
    let path: String
    let mailbox: Mailbox
    private(set) var manifest: PluginManifest
    var id: String { entry.id }

    private let bus: PluginBus
    private let requests: any PlayerRequestSink
    private let commands: CommandRegistry
    private let gateway: PluginCommandGateway
    private let logger: Logger
    private let directories: PluginManager.Directories
    private let lock = NSLock()
    private var channel: IsolationChannel?
    private var pid: pid_t = 0
    private var crashTimes: [Date] = []
    private var stopping = false
    private var off = false
    private var lostWhileDown = 0
    private var lastPong = Date()
    private var pingsUnanswered = 0
    /// A ping is being written: the next waits (a full socket must not pile up threads).
    private var pingInFlight = false
    private let replies = PendingReplies()

    /// Starts the child and waits for its create(); throws what in-process loading would throw.
    init(entry: PluginEntry, path: String, bus: PluginBus, requests: any PlayerRequestSink, commands: CommandRegistry,
         gateway: PluginCommandGateway, logger: Logger, directories: PluginManager.Directories, mailboxLimits: Mailbox.Limits) throws(PluginLoadError) {
        self.entry = entry
        self.path = path
        self.bus = bus
        self.requests = requests
        self.commands = commands
        self.gateway = gateway
        self.logger = logger
        self.directories = directories
        mailbox = bus.makeMailbox(for: entry.id, limits: mailboxLimits)
        let ready: IsolationManifest.Ready
        do {
            ready = try Self.spawn(entry: entry, path: path, directories: directories, into: &channel, pid: &pid)
        } catch {
            throw .createFailed(path: path, id: entry.id, reason: "in its isolated process: \(error)")
        }
        manifest = ready.manifest
        guard manifest.id == entry.id else {
            kill(pid, SIGKILL)
            throw .idMismatch(path: path, configured: entry.id, declared: manifest.id)
        }
        register(ready.commands)
        startReader()
        mailbox.start(consumer: self)
        bus.subscribe(id: entry.id, kinds: Self.kindFilter(manifest, bus: bus), taps: ready.taps, pcm: ready.pcm, mailbox: mailbox)
        startWatchdog()
    }

    // MARK: Down the socket (the proxy's mailbox thread)

    func deliver(event: FrozenEvent) {
        send(.event, body: IsolationCodec.body(of: event.event))
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {
        send(.media, body: IsolationCodec.body(of: media, extraFlags: extraFlags),
             bytes: UnsafeRawBufferPointer(start: media.bytes.baseAddress, count: media.size))
    }

    func deliverDropNotice(_ counts: Mailbox.DropCounts) {
        guard manifest.hasOnEvent else { return }
        let drop = DropInfo(pluginID: id, mediaTap: counts.lastMediaTap, droppedEvents: counts.events, droppedBytes: counts.mediaBytes)
        deliver(event: FrozenEvent(BusEvent(kind: OTON_EVENT_DROPPED, name: "dropped", payload: .dropped(drop))))
    }

    private func send(_ kind: IsolationChannel.Kind, body: [UInt8], bytes: UnsafeRawBufferPointer? = nil) {
        let current = lock.withLock { channel }
        if current?.send(kind, body: body, bytes: bytes) != true {
            lock.withLock { lostWhileDown += 1 }
        }
    }

    // MARK: Commands

    /// Runs a command in the child and waits for its reply (at most `timeout` seconds).
    func run(command name: String, arguments: [String], timeout: Double) -> CommandReply {
        let (current, isOff) = lock.withLock { (channel, off) }
        if isOff { return CommandReply(ok: false, text: "\(id) crashed too often and is off until oton restarts") }
        guard let current else { return CommandReply(ok: false, text: "\(id) is restarting after a crash; try again in a few seconds") }
        let (requestID, wait) = replies.open()
        guard current.send(.command, ["id": .int(requestID), "name": .string(name), "args": .strings(arguments)]) else {
            replies.cancel(requestID)
            return CommandReply(ok: false, text: "\(id) is restarting after a crash; try again in a few seconds")
        }
        guard let reply = wait(timeout) else { return CommandReply(ok: false, text: "\(id) did not answer \"\(name)\" within \(Int(timeout)) s") }
        return CommandReply(ok: reply["ok"]?.boolValue ?? false, text: reply["text"]?.stringValue ?? "")
    }

    private func register(_ list: [PluginManifest.Command]) {
        for command in list where !commands.register(command, for: id) {
            let owner = commands.entry(named: command.name)?.pluginID ?? "another plugin"
            logger.warning("plugin \(id): command \"\(command.name)\" is already provided by \(owner); \(owner) keeps it")
        }
    }

    // MARK: Up the socket (the reader thread)

    private func startReader() {
        guard let current = lock.withLock({ channel }) else { return }
        let thread = Thread { [self] in
            while let frame = current.receive() { handle(frame, from: current) }
            childEnded(brokeProtocol: current.sawGarbage)
        }
        thread.name = "oton.isolation.\(id)"
        thread.start()
    }

    private func handle(_ frame: IsolationChannel.Frame, from current: IsolationChannel) {
        switch frame.kind {
        case .publish:
            guard var event = IsolationCodec.event(fromBody: frame.bytes, registry: bus.registry),
                  event.kind >= OTON_EVENT_FIRST_DYNAMIC else { return } // core kinds are the host's
            event.source = id
            event.monotonicNanoseconds = Clock.monotonicNanoseconds()
            event.wallMicroseconds = Clock.wallMicroseconds()
            bus.publish(event)
        case .request:
            if let request = IsolationCodec.request(from: frame.header) { requests.submit(request, from: id) }
        case .reply:
            if let requestID = frame.header["id"]?.intValue { replies.resolve(requestID, frame.header) }
        case .pong:
            lock.withLock { lastPong = Date(); pingsUnanswered = 0 }
        case .run:
            let runID = frame.header["id"]?.intValue ?? 0
            let request = ControlRequest(id: nil, name: frame.header["name"]?.stringValue ?? "",
                                         arguments: frame.header["args"]?.stringsValue ?? [])
            gateway.run(request) { ok, json in
                let object = (try? JSONValue.parse(Data(json.utf8)))?.objectValue ?? [:]
                var header: [String: JSONValue] = ["id": .int(runID), "ok": .bool(ok),
                                                   "text": .string((object["text"] ?? object["error"])?.stringValue ?? "")]
                if let data = object["data"] { header["data"] = data }
                current.send(.runReply, header)
            }
        case .registered:
            if let name = frame.header["name"]?.stringValue {
                register([PluginManifest.Command(name: name, usage: frame.header["usage"]?.stringValue ?? name,
                                                 help: frame.header["help"]?.stringValue ?? "")])
            }
        default:
            break
        }
    }

    // MARK: Crashes, hangs and restarts

    private func childEnded(brokeProtocol: Bool) {
        let (ended, wasStopping) = lock.withLock { () -> (pid_t, Bool) in
            // A child that sends what is not a frame is not believed any further: killed first.
            if brokeProtocol, !stopping { kill(pid, SIGKILL) }
            channel?.close()
            channel = nil
            return (pid, stopping)
        }
        replies.failAll()
        var status: Int32 = 0
        // A dying process closes its sockets a moment before it can be reaped: give it a second,
        // then end one that still runs without its socket.
        var reaped = waitpid(ended, &status, WNOHANG)
        for _ in 0 ..< 100 where reaped == 0 {
            usleep(10_000)
            reaped = waitpid(ended, &status, WNOHANG)
        }
        if reaped == 0 {
            kill(ended, SIGKILL)
            while waitpid(ended, &status, 0) < 0 && errno == EINTR {}
        }
        guard !wasStopping else { return }
        let how = brokeProtocol ? "sent oton something that is not a frame (killed)" : Self.describe(status)
        let now = Date()
        let (count, delay, giveUp) = lock.withLock { () -> (Int, Double, Bool) in
            crashTimes = crashTimes.filter { now.timeIntervalSince($0) < Self.crashWindowSeconds } + [now]
            let count = crashTimes.count
            off = count >= Self.crashLimit
            return (count, Self.restartDelays[min(count - 1, Self.restartDelays.count - 1)], off)
        }
        if giveUp {
            logger.error("plugin \(id) \(how) \(count) times in \(Int(Self.crashWindowSeconds / 60)) minutes; it stays off until oton restarts (playback goes on)")
            return
        }
        logger.error("plugin \(id) \(how); restarting in \(Int(delay)) s (crash \(count) of \(Self.crashLimit) in \(Int(Self.crashWindowSeconds / 60)) min; playback goes on)")
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in restart() }
    }

    private func restart() {
        guard !lock.withLock({ stopping }) else { return }
        var newChannel: IsolationChannel?
        var newPID: pid_t = 0
        do {
            let ready = try Self.spawn(entry: entry, path: path, directories: directories, into: &newChannel, pid: &newPID)
            let lost = lock.withLock { () -> Int in
                channel = newChannel
                pid = newPID
                lastPong = Date()
                pingsUnanswered = 0
                defer { lostWhileDown = 0 }
                return lostWhileDown
            }
            commands.removeAll(of: id)
            register(ready.commands)
            startReader()
            // In sync again: where things stand now, as a late subscriber gets it.
            for kind in [OTON_EVENT_STATE, OTON_EVENT_TRACK, OTON_EVENT_VOLUME] {
                guard let frozen = bus.current(kind), Self.kindFilter(manifest, bus: bus).accepts(kind) else { continue }
                var event = frozen.event
                event.flags |= OTON_EVENT_FLAG_REPLAY
                newChannel?.send(.event, body: IsolationCodec.body(of: event))
            }
            logger.info("plugin \(id) restarted in a new process (pid \(newPID)); \(lost) events and buffers were lost while it was down")
        } catch {
            logger.error("plugin \(id) did not start again: \(error)")
            // Counted like a crash, so a plugin that can no longer start is given up too.
            childEndedAfterFailedStart()
        }
    }

    private func childEndedAfterFailedStart() {
        let now = Date()
        let (count, delay, giveUp) = lock.withLock { () -> (Int, Double, Bool) in
            crashTimes = crashTimes.filter { now.timeIntervalSince($0) < Self.crashWindowSeconds } + [now]
            off = crashTimes.count >= Self.crashLimit
            return (crashTimes.count, Self.restartDelays[min(crashTimes.count - 1, Self.restartDelays.count - 1)], off)
        }
        if giveUp {
            logger.error("plugin \(id) failed \(count) times in \(Int(Self.crashWindowSeconds / 60)) minutes; it stays off until oton restarts (playback goes on)")
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in restart() }
        }
    }

    /// Pings the child every 2 s through its plugin's mailbox; a child that does not answer for
    /// ``hangSeconds`` is stuck in a callback: it is killed, which the reader sees as a crash.
    private func startWatchdog() {
        let thread = Thread { [self] in
            var sequence = 0
            while !lock.withLock({ stopping || off }) {
                Thread.sleep(forTimeInterval: 2)
                let (current, target, silentFor) = lock.withLock { (channel, pid, Date().timeIntervalSince(lastPong)) }
                guard let current else { continue }
                if silentFor > Self.hangSeconds {
                    logger.error("plugin \(id) has not answered for \(Int(silentFor)) s (stuck in a callback); killing its process")
                    lock.withLock { lastPong = Date() }
                    kill(target, SIGKILL)
                    continue
                }
                // Sent from another thread: with a child that stopped reading, the socket is full and a
                // send blocks until the kill above ends it; this thread must stay free to do that.
                guard lock.withLock({ () -> Bool in
                    defer { pingInFlight = true }
                    return !pingInFlight
                }) else { continue }
                sequence += 1
                let number = sequence
                DispatchQueue.global().async { [self] in
                    current.send(.ping, ["seq": .int(number)])
                    lock.withLock { pingInFlight = false }
                }
            }
        }
        thread.name = "oton.isolation.watchdog.\(id)"
        thread.start()
    }

    /// Ends the child: destroy() there within `timeout` seconds, else SIGKILL. False when it had to be killed.
    @discardableResult
    func destroy(timeout: Double) -> Bool {
        let (current, target) = lock.withLock { () -> (IsolationChannel?, pid_t) in
            stopping = true
            return (channel, pid)
        }
        let deadline = Date().addingTimeInterval(max(timeout, 0.5))
        // What is queued goes down first (bounded: a child that stopped reading holds the mailbox
        // thread in a send), then destroy, from another thread for the same reason.
        _ = mailbox.close(after: {}, timeout: timeout / 2)
        guard let current, target > 0 else { return true }
        DispatchQueue.global().async { current.send(.destroy) }
        while Date() < deadline {
            if kill(target, 0) != 0 || Self.isZombie(target) { return true }
            usleep(10_000)
        }
        kill(target, SIGKILL)
        return false
    }

    // MARK: The child process

    /// Where `oton plugin-host` is: this executable when it is oton, else the oton beside it (tests).
    static var executable: String {
        let own = PluginLibrary.realPath("/proc/self/exe") ?? "oton"
        if (own as NSString).lastPathComponent == "oton" { return own }
        return ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("oton")
    }

    private static func spawn(entry: PluginEntry, path: String, directories: PluginManager.Directories,
                              into channel: inout IsolationChannel?, pid: inout pid_t) throws -> IsolationManifest.Ready {
        let (ours, theirs) = try IsolationChannel.pair()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, theirs, 3) // dup2 clears close-on-exec on fd 3
        let arguments = [executable, "plugin-host", "--fd", "3", "--id", entry.id, "--path", path,
                         "--config", entry.config.jsonText, "--data-home", directories.dataHome, "--cache-home", directories.cacheHome]
        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        // The child's crash is reported in one line (its culprit line, then ours with the signal);
        // Swift's backtracer would keep the dead child around for many seconds first.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, &cArguments, &cEnvironment)
        close(theirs)
        guard spawned == 0 else {
            close(ours)
            throw IsolationError.system("starting \(executable) plugin-host", spawned)
        }
        pid = child
        let candidate = IsolationChannel(fd: ours)
        // The child's create() has this long to say ready or why not.
        var limit = timeval(tv_sec: Int(startSeconds), tv_usec: 0)
        setsockopt(ours, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let first = candidate.receive()
        var none = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(ours, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        switch first?.kind {
        case .ready?:
            guard let ready = IsolationManifest.ready(from: first!.header) else {
                kill(child, SIGKILL)
                throw IsolationError.child("its ready message was unreadable")
            }
            channel = candidate
            return ready
        case .failed?:
            var status: Int32 = 0
            waitpid(child, &status, 0)
            throw IsolationError.child(first?.header["reason"]?.stringValue ?? "create() failed")
        default:
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            throw IsolationError.child(first == nil ? "it \(describe(status)) before it was ready" : "it said something else than ready")
        }
    }

    private static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    /// "crashed: SIGSEGV", "exited with status 3".
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        if signal != 0 && signal != 0x7f {
            return "crashed: \(signalName(signal))"
        }
        return "exited with status \((status >> 8) & 0xff)"
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGABRT: "SIGABRT"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }

    static func kindFilter(_ manifest: PluginManifest, bus: PluginBus) -> PluginBus.KindFilter {
        guard manifest.hasOnEvent else { return .only([]) }
        if manifest.consumes.contains("*") { return .all }
        var kinds = Set(manifest.consumes.compactMap { bus.registry.kind(for: $0) })
        kinds.insert(OTON_EVENT_DROPPED)
        return .only(kinds)
    }
}
