import Dispatch
import Foundation
import Logging
import OtonCrashGuard
import OtonEvents
import OtonJSON
import OtonStations
import OtonSupport
import PluginAPI
import Synchronization

/// The child side of `"isolation": "process"` (`oton plugin-host`): loads the one plugin with the
/// same loader, host table and mailbox as in-process, on a bus of its own, and connects that bus to
/// oton over the socket: events and media from oton are published here; what the plugin publishes,
/// requests and runs goes back. Its log lines go to the stderr it shares with oton.
///
/// Threading: `run` reads the socket on the calling thread until oton says destroy or goes away;
/// commands run on a global queue; the plugin's own calls come from its mailbox or its threads.
public enum PluginHostChild {
    /// Returns the exit status of `oton plugin-host`. The plugin's config is the first frame oton
    /// sends, never an argument (a command line is for every local user to read). `restart`: oton
    /// started this child again after a crash, and retries it if it fails to start (so its crash
    /// line says "restarts it" from the start).
    public static func run(fd: Int32, id: String, path: String, directories: PluginManager.Directories, restart: Bool = false) -> Int32 {
        oton_crash_guard_become_isolated_child()
        if restart { oton_crash_guard_isolated_child_restartable() }
        // Ctrl-C in a terminal signals the whole process group: oton decides when this child ends.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(IsolatedPluginProcess.memoryLimitBytes), rlim_max: rlim_t(IsolatedPluginProcess.memoryLimitBytes))
        if setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit) != 0 {
            Logger(label: "oton.plugins").warning(
                "\(tr("{plugin}: could not limit its process's memory: {reason}", ["plugin": id, "reason": String(cString: strerror(errno))]))")
        }
        let channel = IsolationChannel(fd: fd)
        guard let config = receiveConfig(from: channel) else {
            channel.send(.failed, ["reason": .string(tr("its config did not arrive"))])
            return 0
        }
        let entry = PluginEntry(id: id, path: path, config: config, location: "isolated")
        let logger = Logger(label: "oton.plugins")
        let bus = PluginBus(logger: Logger(label: "oton.bus"))
        let manager = PluginManager(
            bus: bus, requests: UplinkRequests(channel: channel), directories: directories,
            logger: logger, searchDirectories: [])
        let runs = PendingReplies()
        // Commands the plugin runs from create() go up once oton has the ready message (its first).
        let readySent = DispatchSemaphore(value: 0)
        manager.gateway.connect { request in
            if readySent.wait(timeout: .now() + IsolatedPluginProcess.startSeconds) == .success { readySent.signal() }
            let (id, wait) = runs.open()
            guard channel.send(.run, ["id": .int(id), "name": .string(request.name), "args": .strings(request.arguments)]) else {
                runs.cancel(id)
                return .failure("oton went away")
            }
            guard let reply = wait(ControlCommandsTimeout.seconds + 2) else { return .failure("oton did not answer \"\(request.name)\"") }
            return ControlReply(ok: reply["ok"]?.boolValue ?? false, text: reply["text"]?.stringValue ?? "", data: reply["data"]?.objectValue)
        }
        var local = entry
        local.isolation = .inProcess
        let report = manager.start([local], announcing: false).first
        guard case let .running(manifest)? = report?.status else {
            // oton shows it to a person: in the language this child shares with it.
            var reason = tr("the plugin did not start")
            if case let .failed(error)? = report?.status { reason = error.description(in: .current) }
            channel.send(.failed, ["reason": .string(reason)])
            return 0
        }
        // Started: a crash from now on is one oton restarts, and the crash line says so.
        oton_crash_guard_isolated_child_restartable()
        // What the plugin publishes (its own events only) goes up to oton.
        let uplink = bus.makeMailbox(for: "oton.isolation.uplink")
        let forwarder = PublishForwarder(pluginID: manifest.id, channel: channel)
        bus.subscribe(id: "oton.isolation.uplink", kinds: .all, mailbox: uplink)
        uplink.start(consumer: forwarder)
        let selection = manager.selection(of: manifest.id)
        let declared = Set(manifest.commands.map(\.name))
        for entry in manager.commands.all where entry.pluginID == manifest.id {
            channel.send(.registered, IsolationManifest.header(of: entry.command, declared: declared.contains(entry.command.name)))
        }
        guard channel.send(.ready, IsolationManifest.header(of: manifest, taps: selection?.taps ?? 0, pcm: selection?.pcm ?? .standard)) else {
            channel.send(
                .failed,
                [
                    "reason": .string(
                        tr("its descriptor does not fit in one message (at most {size} KiB)", ["size": String(IsolationChannel.maximumHeaderBytes / 1024)]))
                ])
            manager.shutdown(finalState: nil)
            return 0
        }
        readySent.signal()
        var formats: [String: MediaFormat] = [:]
        while let frame = channel.receive() {
            switch frame.kind {
            case .event:
                if let event = IsolationCodec.event(fromBody: frame.bytes, registry: bus.registry) { bus.publish(event) }
            case .media:
                if let packet = IsolationCodec.packet(fromBody: frame.bytes, formats: &formats) { bus.publish(media: packet) }
            case .command:
                let id = frame.header["id"]?.intValue ?? 0
                let name = frame.header["name"]?.stringValue ?? ""
                let arguments = frame.header["args"]?.stringsValue ?? []
                DispatchQueue.global().async {
                    let reply = manager.run(command: name, arguments: arguments) ?? CommandReply(ok: false, text: "unknown command \"\(name)\"")
                    channel.send(.reply, ["id": .int(id), "ok": .bool(reply.ok), "text": .string(reply.text)])
                }
            case .ping:
                let sequence = frame.header["seq"]?.intValue ?? 0
                // Answered from the plugin's own mailbox: a plugin stuck in a callback does not answer.
                _ = manager.enqueue(on: manifest.id) { channel.send(.pong, ["seq": .int(sequence)]) }
            case .runReply:
                if let id = frame.header["id"]?.intValue { runs.resolve(id, frame.header) }
            case .destroy:
                manager.shutdown(finalState: nil)
                uplink.close()
                channel.send(.reply, ["destroyed": true])
                return 0
            default:
                break
            }
        }
        // oton went away without a word: end as a shutdown would.
        manager.shutdown(finalState: nil)
        return 0
    }

    /// The config frame oton sends first; nil when something else came or the stream ended.
    private static func receiveConfig(from channel: IsolationChannel) -> JSONValue? {
        guard let frame = channel.receive(), frame.kind == .config else { return nil }
        return try? JSONParser(maxBytes: max(frame.bytes.count, 1)).parse(Data(frame.bytes))
    }
}

/// The plugin's requests to the player, sent up to oton's player.
private struct UplinkRequests: PlayerRequestSink {
    let channel: IsolationChannel

    func submit(_ request: PlayerRequest, from source: String) {
        guard let header = IsolationCodec.header(of: request) else { return }
        channel.send(.request, header)
    }
}

/// Sends the events the isolated plugin publishes to oton; everything else on the child's bus came from oton.
private final class PublishForwarder: MailboxConsumer, @unchecked Sendable {
    let pluginID: String
    let channel: IsolationChannel

    init(pluginID: String, channel: IsolationChannel) {
        self.pluginID = pluginID
        self.channel = channel
    }

    func deliver(event: FrozenEvent) {
        guard event.event.source == pluginID else { return }
        channel.send(.publish, body: IsolationCodec.body(of: event.event))
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}
}

/// Replies awaited by id (run_command's commands, answered by oton).
package final class PendingReplies: @unchecked Sendable {
    private final class Slot {
        let done = DispatchSemaphore(value: 0)
        var reply: [String: JSONValue]?
    }
    private let lock = NSLock()
    private var next = 1
    private var slots: [Int: Slot] = [:]

    /// A new id, and a wait for its reply (nil after `timeout` seconds).
    package func open() -> (Int, (Double) -> [String: JSONValue]?) {
        let slot = Slot()
        let id = lock.withLock { () -> Int in
            let id = next
            next += 1
            slots[id] = slot
            return id
        }
        return (
            id,
            { [self] timeout in
                let answered = slot.done.wait(timeout: .now() + timeout) == .success
                return lock.withLock {
                    slots[id] = nil
                    return answered ? slot.reply : nil
                }
            }
        )
    }

    package func resolve(_ id: Int, _ reply: [String: JSONValue]) {
        guard let slot = lock.withLock({ slots[id] }) else { return }
        lock.withLock { slot.reply = reply }
        slot.done.signal()
    }

    package func cancel(_ id: Int) {
        lock.withLock { _ = slots.removeValue(forKey: id) }
    }

    /// Every waiter gets nil at once (the other side is gone).
    package func failAll() {
        let all = lock.withLock { () -> [Slot] in
            defer { slots = [:] }
            return Array(slots.values)
        }
        for slot in all { slot.done.signal() }
    }
}

/// How long a command's reply may take (``PluginInstance/run(command:arguments:timeout:)``'s default).
package enum ControlCommandsTimeout {
    package static let seconds = 10.0
}
