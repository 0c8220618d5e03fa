import Dispatch
import Foundation
import Logging
import OtonEvents
import OtonJSON
import OtonStations
import OtonSupport
import PluginAPI

/// A plugin with `"isolation": "process"`: it runs in a child process (`oton plugin-host`) and this
/// proxy stands in for it on oton's bus. Events and media reach the proxy through a bounded mailbox
/// like any plugin's (a slow child loses them there, counted, with DISCONT on the next buffer) and
/// go down the socket; what the plugin publishes, requests and runs comes back up and takes the
/// same paths as an in-process plugin's.
///
/// A crash (its process ends: a watcher thread waits for it, the socket's end proves nothing, as a
/// forked descendant may hold it) or a hang (no answer to a ping within ``hangSeconds``, then
/// SIGKILL) or a broken protocol (junk, a header over the cap: killed) is logged with the plugin's
/// id and the signal or the breach, and the child is started again after 1, 2, 4, 8 s;
/// after ``crashLimit`` crashes within ``crashWindowSeconds`` it stays off, said once. Playback and
/// the other plugins never wait for it.
///
/// Threading: the mailbox worker writes events and media; a reader thread handles the child's
/// frames; a watcher thread per process reaps it; a watchdog thread pings; commands come from
/// control-client threads. `lock` guards every `var` below it (channel, pid, counters, flags).
package final class IsolatedPlugin: MailboxConsumer, @unchecked Sendable {
    package static let restartDelays: [Double] = [1, 2, 4, 8]
    package static let crashLimit = 5
    package static let crashWindowSeconds = 600.0
    package static let hangSeconds = 10.0

    package let entry: PluginEntry
    package let path: String
    package let mailbox: Mailbox
    package private(set) var manifest: PluginManifest
    package var id: String { entry.id }

    private let bus: PluginBus
    private let requests: any PlayerRequestSink
    private let commands: CommandRegistry
    private let gateway: PluginCommandGateway
    private let logger: Logger
    private let directories: PluginManager.Directories
    private let lock = NSLock()
    private var channel: IsolationChannel?
    /// The keeper of the plugin's process tree; 0 once the watcher reaped it (never signalled then).
    private var pid: pid_t = 0
    /// How the current process broke the protocol, when the reader found it did.
    private var breach: String?
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
    package init(
        entry: PluginEntry, path: String, bus: PluginBus, requests: any PlayerRequestSink, commands: CommandRegistry,
        gateway: PluginCommandGateway, logger: Logger, directories: PluginManager.Directories, mailboxLimits: Mailbox.Limits
    ) throws(PluginLoadError) {
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
            ready = try IsolatedPluginProcess.spawn(entry: entry, path: path, directories: directories, into: &channel, pid: &pid)
        } catch let IsolationError.crashedStarting(signal) {
            throw .crashedStarting(path: path, id: entry.id, signal: signal)
        } catch {
            throw .createFailed(path: path, id: entry.id, reason: "in its isolated process: \(error)")
        }
        manifest = ready.manifest
        guard manifest.id == entry.id else {
            IsolatedPluginProcess.end(pid)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            throw .idMismatch(path: path, configured: entry.id, declared: manifest.id)
        }
        register(ready.commands)
        startReader()
        startWatcher(pid)
        mailbox.start(consumer: self)
        bus.subscribe(id: entry.id, kinds: Self.kindFilter(manifest, bus: bus), taps: ready.taps, pcm: ready.pcm, mailbox: mailbox)
        startWatchdog()
    }

    // MARK: Down the socket (the proxy's mailbox worker)

    package func deliver(event: FrozenEvent) {
        send(.event, body: IsolationCodec.body(of: event.event))
    }

    package func deliver(media: MediaPacket, extraFlags: UInt32) {
        send(
            .media, body: IsolationCodec.body(of: media, extraFlags: extraFlags),
            bytes: UnsafeRawBufferPointer(start: media.bytes.baseAddress, count: media.size))
    }

    package func deliverDropNotice(_ counts: Mailbox.DropCounts) {
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
    package func run(command name: String, arguments: [String], timeout: Double) -> CommandReply {
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
        for command in list { commands.register(command, for: id, logger: logger) }
    }

    // MARK: Up the socket (the reader thread)

    private func startReader() {
        guard let (current, child) = lock.withLock({ channel.map { ($0, pid) } }) else { return }
        let thread = Thread { [self] in
            while let frame = current.receive() { handle(frame, from: current) }
            if current.sawGarbage {
                // A child that sends what is not a frame is not believed any further: killed.
                let reason = current.refusal.map { "\($0)" } ?? "something that is not a frame"
                lock.withLock { if pid == child { breach = reason } }
                logger.debug("plugin \(id): its process sent \(reason); ending it")
                endProcess(child)
            } else {
                // The socket ended: the process ends too (the watcher sees it), or it closed its
                // socket and is of no use any more.
                DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [self] in endProcess(child) }
            }
        }
        thread.name = "oton.isolation.\(id)"
        thread.start()
    }

    /// Reaps the keeper when it ends: that, not the socket, says the plugin's process is gone.
    private func startWatcher(_ child: pid_t) {
        let thread = Thread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            childEnded(child, status: status)
        }
        thread.name = "oton.isolation.watcher.\(id)"
        thread.start()
    }

    /// Asks `child`'s keeper to end the plugin's process tree; nothing once it was reaped (its pid may be another's).
    private func endProcess(_ child: pid_t) {
        lock.withLock { if pid == child { IsolatedPluginProcess.end(child) } }
    }

    private func handle(_ frame: IsolationChannel.Frame, from current: IsolationChannel) {
        switch frame.kind {
        case .publish:
            guard var event = IsolationCodec.event(fromBody: frame.bytes, registry: bus.registry),
                event.kind >= OTON_EVENT_FIRST_DYNAMIC
            else { return }  // core kinds are the host's
            event.source = id
            event.monotonicNanoseconds = Clock.monotonicNanoseconds()
            event.wallMicroseconds = Clock.wallMicroseconds()
            bus.publish(event)
        case .request:
            if let request = IsolationCodec.request(from: frame.header) { requests.submit(request, from: id) }
        case .reply:
            if let requestID = frame.header["id"]?.intValue { replies.resolve(requestID, frame.header) }
        case .pong:
            lock.withLock {
                lastPong = Date(); pingsUnanswered = 0
            }
        case .run:
            let runID = frame.header["id"]?.intValue ?? 0
            let request = ControlRequest(
                id: nil, name: frame.header["name"]?.stringValue ?? "",
                arguments: frame.header["args"]?.stringsValue ?? [])
            gateway.run(request) { ok, json in
                let object = (try? JSONValue.parse(Data(json.utf8)))?.objectValue ?? [:]
                var header: [String: JSONValue] = [
                    "id": .int(runID), "ok": .bool(ok),
                    "text": .string((object["text"] ?? object["error"])?.stringValue ?? ""),
                ]
                if let data = object["data"] { header["data"] = data }
                current.send(.runReply, header)
            }
        case .registered:
            // Checked by the registry (CommandRule: the same rule and caps as in-process).
            if let command = IsolationManifest.command(from: frame.header) { register([command]) }
        default:
            break
        }
    }

    // MARK: Crashes, hangs and restarts

    private func childEnded(_ child: pid_t, status: Int32) {
        let (wasStopping, breach) = lock.withLock { () -> (Bool, String?) in
            let breach = self.breach
            if pid == child {
                pid = 0
                self.breach = nil
                channel?.close()
                channel = nil
            }
            return (stopping, breach)
        }
        replies.failAll()
        guard !wasStopping else { return }
        let how = breach.map { tr("sent oton {what} (killed)", ["what": $0]) } ?? IsolatedPluginProcess.describe(status)
        let now = Date()
        let (count, delay, giveUp) = lock.withLock { () -> (Int, Double, Bool) in
            crashTimes = crashTimes.filter { now.timeIntervalSince($0) < Self.crashWindowSeconds } + [now]
            let count = crashTimes.count
            off = count >= Self.crashLimit
            return (count, Self.restartDelays[min(count - 1, Self.restartDelays.count - 1)], off)
        }
        if giveUp {
            logger.error(
                "\(tr("plugin {plugin} {how} {count} times in {minutes} minutes; it stays off until oton restarts (playback goes on)", ["plugin": id, "how": how, "count": String(count), "minutes": String(Int(Self.crashWindowSeconds / 60))]))"
            )
            return
        }
        logger.error(
            "\(tr("plugin {plugin} {how}; restarting in {seconds} s (crash {count} of {limit} in {minutes} min; playback goes on)", ["plugin": id, "how": how, "seconds": String(Int(delay)), "count": String(count), "limit": String(Self.crashLimit), "minutes": String(Int(Self.crashWindowSeconds / 60))]))"
        )
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in restart() }
    }

    private func restart() {
        guard !lock.withLock({ stopping }) else { return }
        var newChannel: IsolationChannel?
        var newPID: pid_t = 0
        do {
            let ready = try IsolatedPluginProcess.spawn(
                entry: entry, path: path, directories: directories, restart: true,
                into: &newChannel, pid: &newPID)
            let lost = lock.withLock { () -> Int in
                channel = newChannel
                pid = newPID
                lastPong = Date()
                pingsUnanswered = 0
                defer { lostWhileDown = 0 }
                return lostWhileDown
            }
            // The old process's registrations go; the new one's are checked afresh (and a refusal logged again).
            commands.removeAll(of: id)
            register(ready.commands)
            startReader()
            startWatcher(newPID)
            // In sync again: where things stand now, as a late subscriber gets it.
            for kind in [OTON_EVENT_STATE, OTON_EVENT_TRACK, OTON_EVENT_VOLUME] {
                guard let frozen = bus.current(kind), Self.kindFilter(manifest, bus: bus).accepts(kind) else { continue }
                var event = frozen.event
                event.flags |= OTON_EVENT_FLAG_REPLAY
                newChannel?.send(.event, body: IsolationCodec.body(of: event))
            }
            logger.info("plugin \(id) restarted in a new process (pid \(newPID)); \(lost) events and buffers were lost while it was down")
        } catch {
            logger.error("\(tr("plugin {plugin} did not start again: {reason}", ["plugin": id, "reason": "\(error)"]))")
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
            logger.error(
                "\(tr("plugin {plugin} failed {count} times in {minutes} minutes; it stays off until oton restarts (playback goes on)", ["plugin": id, "count": String(count), "minutes": String(Int(Self.crashWindowSeconds / 60))]))"
            )
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
                    logger.error(
                        "\(tr("plugin {plugin} has not answered for {seconds} s (stuck in a callback); killing its process", ["plugin": id, "seconds": String(Int(silentFor))]))"
                    )
                    lock.withLock { lastPong = Date() }
                    endProcess(target)
                    continue
                }
                // Sent from another thread: with a child that stopped reading, the socket is full and a
                // send blocks until the kill above ends it; this thread must stay free to do that.
                guard
                    lock.withLock({ () -> Bool in
                        defer { pingInFlight = true }
                        return !pingInFlight
                    })
                else { continue }
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
    package func destroy(timeout: Double) -> Bool {
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
        // Gone once the watcher reaped the keeper, which ends only after every descendant did.
        let reaped = { [self] in lock.withLock { pid != target } }
        while Date() < deadline {
            if reaped() { return true }
            usleep(10_000)
        }
        endProcess(target)
        let killDeadline = Date().addingTimeInterval(2)
        while Date() < killDeadline, !reaped() { usleep(10_000) }
        // The keeper is oton's own code and answers at once; a last resort all the same.
        lock.withLock { if pid == target { kill(target, SIGKILL) } }
        return false
    }

    package static func kindFilter(_ manifest: PluginManifest, bus: PluginBus) -> PluginBus.KindFilter {
        guard manifest.hasOnEvent else { return .only([]) }
        if manifest.consumes.contains("*") { return .all }
        var kinds = Set(manifest.consumes.compactMap { bus.registry.kind(for: $0) })
        kinds.insert(OTON_EVENT_DROPPED)
        return .only(kinds)
    }
}
