import Foundation
import OtonCrashGuard
import OtonEvents
import OtonJSON
import OtonMedia
import PluginAPI
import Synchronization

/// The reply of a control command answered by a plugin.
public struct CommandReply: Equatable, Sendable {
    public var ok: Bool
    public var text: String

    public init(ok: Bool, text: String) {
        self.ok = ok
        self.text = text
    }
}

/// One created plugin: receives events, media and commands on its own mailbox.
/// Every call into the plugin happens on that mailbox's thread, one at a time.
package final class PluginInstance: MailboxConsumer, @unchecked Sendable {
    package let library: PluginLibrary
    package let context: PluginHostContext
    package let mailbox: Mailbox
    private let instance: UnsafeMutableRawPointer
    private var dropKind: UInt32 { OTON_EVENT_DROPPED }
    /// Which callback the mailbox worker is in (a `PluginCall` raw value), for the shutdown log.
    private let activeCall = Atomic<UInt8>(PluginCall.none.rawValue)
    /// Names this plugin on stderr if a fatal signal arrives while one of its callbacks runs.
    private let culprit: PluginCrashCulprit

    package var id: String { library.manifest.id }

    /// The plugin's filter with this instance (ABI 1.6), nil when it has none. Called on the audio
    /// thread by the effect chain; the player stops before the instance is destroyed.
    /// The filter is called through the crash guard (``PluginCrashCulprit/guardedFilter(_:context:)``),
    /// so that a crash in it names the plugin.
    package var filter: AudioFilter? {
        guardedFilterContext.map { context in
            AudioFilter(name: id, function: oton_crash_guard_call_filter, context: context)
        }
    }
    /// The filter's function and this instance for the crash guard's trampoline; nil without a filter.
    private let guardedFilterContext: UnsafeMutableRawPointer?

    /// For `oton plugins validate` and `oton plugins run`: calls the plugin's filter on the calling
    /// thread, marked for the crash guard; returns the nanoseconds it took. The caller makes sure
    /// nothing else calls into the instance meanwhile (no event, media or command is queued).
    package func runFilter(_ samples: UnsafeMutablePointer<Float>, frames: Int, channels: UInt32, rate: UInt32) -> UInt64 {
        guard let function = library.descriptor.filter else { return 0 }
        let instance = self.instance
        var spent: UInt64 = 0
        inside(.filter) {
            let started = DispatchTime.now().uptimeNanoseconds
            function(instance, samples, frames, channels, rate)
            spent = DispatchTime.now().uptimeNanoseconds - started
        }
        return spent
    }

    /// Calls the plugin's create() on the calling thread. The mailbox starts afterwards.
    package init(library: PluginLibrary, context: PluginHostContext, configJSON: String, mailbox: Mailbox) throws(PluginLoadError) {
        self.library = library
        self.context = context
        self.mailbox = mailbox
        let culprit = PluginCrashCulprit(id: library.manifest.id, path: library.path)
        self.culprit = culprit
        let errorSize = 1024
        let error = UnsafeMutablePointer<CChar>.allocate(capacity: errorSize)
        defer { error.deallocate() }
        error.initialize(repeating: 0, count: errorSize)
        let created = culprit.inside(.create) {
            library.descriptor.create?(UnsafePointer(context.table), configJSON, error, errorSize)
        }
        context.endCreate()
        guard let created else {
            error[errorSize - 1] = 0
            let reason = String(cString: error)
            throw .createFailed(
                path: library.path, id: library.manifest.id,
                reason: reason.isEmpty ? PluginLoadError.noReasonGiven : reason)
        }
        instance = created
        guardedFilterContext = library.descriptor.filter.map { function in
            culprit.guardedFilter(unsafeBitCast(function, to: AudioFilter.Function.self), context: created)
        }
        mailbox.start(consumer: self)
    }

    package func deliver(event: FrozenEvent) {
        guard let onEvent = library.descriptor.on_event else { return }
        inside(.onEvent) { onEvent(instance, event.pointer) }
    }

    package func deliver(media: MediaPacket, extraFlags: UInt32) {
        guard let onMedia = library.descriptor.on_media else { return }
        inside(.onMedia) { media.withCBuffer(extraFlags: extraFlags) { onMedia(instance, $0) } }
    }

    /// The callback the plugin is in right now, or nil between calls.
    package var currentCall: PluginCall? {
        let call = PluginCall(rawValue: activeCall.load(ordering: .relaxed)) ?? PluginCall.none
        return call == .none ? nil : call
    }

    private func inside(_ call: PluginCall, _ body: () -> Void) {
        activeCall.store(call.rawValue, ordering: .relaxed)
        culprit.inside(call, body)
        activeCall.store(PluginCall.none.rawValue, ordering: .relaxed)
    }

    package func deliverDropNotice(_ counts: Mailbox.DropCounts) {
        guard library.descriptor.on_event != nil else { return }
        let drop = DropInfo(pluginID: id, mediaTap: counts.lastMediaTap, droppedEvents: counts.events, droppedBytes: counts.mediaBytes)
        deliver(event: FrozenEvent(BusEvent(kind: OTON_EVENT_DROPPED, name: "dropped", payload: .dropped(drop))))
    }

    /// Runs a command on the mailbox and waits for the reply (at most `timeout` seconds).
    /// `output`: the reply's pieces are handed to it as the plugin writes them (on the mailbox
    /// thread), once they pass ``ReplyBox/holdBack`` bytes; what is held back then (a short reply,
    /// an error) is the returned reply's text. `timeout` is then the longest wait between pieces,
    /// not for the whole reply: a long listing that keeps coming is not cut off.
    package func run(command name: String, arguments: [String], timeout: Double, output: (@Sendable (String) -> Void)? = nil) -> CommandReply {
        guard let onCommand = library.descriptor.on_command else {
            return CommandReply(ok: false, text: "\(id) does not answer commands")
        }
        let box = ReplyBox(output: output)
        let done = DispatchSemaphore(value: 0)
        let argumentsJSON = JSONValue.array(arguments.map(JSONValue.string)).jsonText
        let instance = self.instance
        let queued = mailbox.perform { [self] in
            inside(.onCommand) {
                let status = onCommand(instance, name, argumentsJSON, replyWriter, Unmanaged.passUnretained(box).toOpaque())
                box.finish(ok: status == OTON_OK)
            }
            done.signal()
        }
        guard queued else { return CommandReply(ok: false, text: "\(id) is shutting down; \"\(name)\" was not run") }
        var pieces = box.pieces
        while done.wait(timeout: .now() + timeout) == .timedOut {
            let now = box.pieces
            guard output != nil, now != pieces else {
                return CommandReply(ok: false, text: "\(id) did not answer \"\(name)\" within \(Int(timeout)) s")
            }
            pieces = now
        }
        return box.reply
    }

    /// Destroys the instance after everything queued; the host table goes dead afterwards.
    /// With a timeout: returns false when the call in progress, what is still queued and
    /// destroy() did not finish within `timeout` seconds. The instance is then abandoned:
    /// its thread stays where it is stuck, nothing is called on it any more, and its host
    /// table is dead all the same.
    @discardableResult
    package func destroy(timeout: Double? = nil) -> Bool {
        let instance = self.instance
        let destroy = library.descriptor.destroy
        let finished = mailbox.close(
            after: { [self] in
                inside(.destroy) { destroy?(instance) }
            }, timeout: timeout)
        context.deactivate()
        return finished
    }
}

/// The plugin callbacks the host makes on a mailbox worker.
package enum PluginCall: UInt8, Sendable {
    case none, onEvent, onMedia, onCommand, destroy, create, filter

    package var name: String {
        switch self {
        case .none: "no call"
        case .onEvent: "on_event"
        case .onMedia: "on_media"
        case .onCommand: "on_command"
        case .destroy: "destroy"
        case .create: "create"
        case .filter: "filter"
        }
    }
}

/// Collects the pieces of a command's reply; lives until the command returns. With `output`,
/// the text is passed on once it is over `holdBack` bytes, and every piece after that as it comes.
/// Concurrency: every field is guarded by `lock`.
private final class ReplyBox: @unchecked Sendable {
    static let holdBack = 64 << 10
    /// Guards every field below.
    private let lock = NSLock()
    private let output: (@Sendable (String) -> Void)?
    private var text = ""
    private var ok = false
    private var passing = false
    private var count = 0

    init(output: (@Sendable (String) -> Void)? = nil) {
        self.output = output
    }

    func append(_ piece: String) {
        lock.lock()
        count += 1
        var out: String?
        if let output {
            if passing {
                out = piece
            } else {
                text += piece
                if text.utf8.count > Self.holdBack {
                    passing = true
                    out = text
                    text = ""
                }
            }
            lock.unlock()
            if let out { output(out) }
            return
        }
        text += piece
        lock.unlock()
    }

    func finish(ok: Bool) {
        lock.lock(); self.ok = ok; lock.unlock()
    }

    /// How many pieces arrived so far.
    var pieces: Int {
        lock.lock(); defer { lock.unlock() }
        return count
    }

    var reply: CommandReply {
        lock.lock(); defer { lock.unlock() }
        return CommandReply(ok: ok, text: text)
    }
}

private let replyWriter: oton_reply_fn = { context, text in
    guard let context, let text else { return }
    Unmanaged<ReplyBox>.fromOpaque(context).takeUnretainedValue().append(String(cString: text))
}
