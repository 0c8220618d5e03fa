import Foundation
import Logging
import OtonEvents
import OtonJSON
import PluginAPI
import Synchronization

/// A small host for `oton plugins validate`: loads one library and creates instances through the
/// real loader, host table, bus and mailbox, with a time limit on every call into the plugin.
/// Data and cache directories are in a temporary folder removed at the end; requests go nowhere.
package final class ValidationHost: @unchecked Sendable {
    package let library: PluginLibrary
    package let bus: PluginBus
    package let limit: Double
    private let scratch: String
    private let logger: Logger

    /// `scratchParent` holds the temporary data and cache directories.
    package init(path: String, limit: Double, scratchParent: String = NSTemporaryDirectory()) throws(ValidationFailure) {
        do throws(PluginLoadError) {
            library = try PluginLibrary(path: path)
        } catch {
            throw ValidationFailure(reason: error.reason)
        }
        self.limit = limit
        var logger = Logger(label: "oton.validate")
        logger.logLevel = .critical  // the plugin's own log lines are not the validator's output
        self.logger = logger
        bus = PluginBus(logger: logger)
        var template = Array((scratchParent + "/oton-validate-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ValidationFailure(reason: "cannot create a temporary directory") }
        scratch = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: scratch) }

    package var manifest: PluginManifest { library.manifest }

    /// What oton would refuse in `config` before create() (the settings the plugin declares); empty when
    /// it fits, declares none, or the text is not JSON (create() then gets it and answers for itself).
    package func settingsProblems(config: String) -> [String] {
        guard !manifest.settings.isEmpty, let parsed = try? JSONValue.parse(Data(config.utf8)) else { return [] }
        return PluginSettingsCheck.problems(config: parsed, settings: manifest.settings)
    }

    /// The result of one create().
    package enum Created {
        case instance(PluginInstance)
        case refused(String)
    }

    /// Calls create() with `config` on a thread of its own, waiting at most `limit` seconds.
    /// A refusal without a reason is a failure; so is a create() that does not return in time.
    package func create(config: String, mailboxLimits: Mailbox.Limits = Mailbox.Limits()) throws(ValidationFailure) -> Created {
        let id = manifest.id
        let context = PluginHostContext(
            pluginID: id, bus: bus, requests: DiscardedRequests(), commands: CommandRegistry(), logger: logger,
            dataDirectory: scratch + "/data/" + id, cacheDirectory: scratch + "/cache/" + id, declaredTaps: manifest.mediaTaps)
        try? FileManager.default.createDirectory(atPath: context.dataDirectory, withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: context.cacheDirectory, withIntermediateDirectories: true)
        let mailbox = bus.makeMailbox(for: id, limits: mailboxLimits)
        let result = Mutex<Result<PluginInstance, PluginLoadError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let library = self.library
        let thread = Thread {
            let outcome: Result<PluginInstance, PluginLoadError>
            do throws(PluginLoadError) {
                outcome = .success(try PluginInstance(library: library, context: context, configJSON: config, mailbox: mailbox))
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        guard done.wait(timeout: .now() + limit) == .success else {
            throw ValidationFailure(reason: "create() blocked for more than \(Self.seconds(limit))")
        }
        switch result.withLock({ $0 })! {
        case let .success(instance):
            let kinds: PluginBus.KindFilter = manifest.hasOnEvent ? .all : .only([])
            bus.subscribe(id: id, kinds: kinds, taps: context.selectedTaps, pcm: context.selectedPCMFormat, mailbox: mailbox)
            return .instance(instance)
        case let .failure(error):
            context.deactivate()
            if case let .createFailed(_, _, reason) = error {
                if reason == PluginLoadError.noReasonGiven { throw ValidationFailure(reason: reason) }
                return .refused(reason)
            }
            throw ValidationFailure(reason: error.reason)
        }
    }

    /// Destroys an instance the way the host does at shutdown: what is still queued is dropped,
    /// the call in progress and destroy() get `limit` seconds.
    package func destroy(_ instance: PluginInstance, discardingPending: Bool = false) throws(ValidationFailure) {
        bus.unsubscribe(id: instance.id)
        if discardingPending { _ = instance.mailbox.discardPending() }
        guard instance.destroy(timeout: limit) else {
            let call = instance.currentCall?.name ?? "destroy"
            throw ValidationFailure(reason: "\(call) blocked for more than \(Self.seconds(limit)) at destroy")
        }
    }

    /// Queues `item` for the instance, then a marker that counts when the mailbox gets past it.
    package func enqueue(_ instance: PluginInstance, _ progress: ProgressCounter, _ item: () -> Void) {
        item()
        instance.mailbox.perform { progress.step() }
        progress.queued += 1
    }

    /// Waits until the instance got past every marker queued, failing when one callback
    /// takes longer than `limit` (no marker passed for that long). Wakes when the last marker
    /// passes, not at the next poll.
    package func awaitProgress(of instance: PluginInstance, _ progress: ProgressCounter, what: String) throws(ValidationFailure) {
        guard progress.wait(for: progress.queued, stall: limit) else {
            let call = instance.currentCall?.name ?? "a callback"
            throw ValidationFailure(reason: "\(what): \(call) blocked for more than \(Self.seconds(limit))")
        }
    }

    package static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

/// How far a mailbox got through the markers queued between the items of a check.
package final class ProgressCounter: @unchecked Sendable {
    private struct State {
        var passed = 0
        /// When the last marker passed (DispatchTime's uptime nanoseconds).
        var lastStep: UInt64 = 0
        /// The count a waiter wants signalled; Int.max when nobody waits.
        var target = Int.max
    }

    private let state = Mutex(State())
    private let reached = DispatchSemaphore(value: 0)
    /// Markers queued so far (by the validating thread only).
    package var queued = 0
    package var passed: Int { state.withLock { $0.passed } }

    /// On the mailbox's thread: one marker passed.
    package func step() {
        let now = DispatchTime.now().uptimeNanoseconds
        let wake = state.withLock { state -> Bool in
            state.passed += 1
            state.lastStep = now
            guard state.passed >= state.target else { return false }
            state.target = .max
            return true
        }
        if wake { reached.signal() }
    }

    /// Waits until `target` markers passed (true), or until none passed for `stall` seconds,
    /// counted from the later of this call and the last marker (false).
    package func wait(for target: Int, stall: Double) -> Bool {
        let started = DispatchTime.now().uptimeNanoseconds
        let stallNanoseconds = UInt64(stall * 1e9)
        while true {
            let (done, since) = state.withLock { state -> (Bool, UInt64) in
                if state.passed >= target { return (true, 0) }
                state.target = target
                return (false, max(state.lastStep, started))
            }
            if done { return true }
            // A signal left from an earlier wait only makes this loop look again.
            if reached.wait(timeout: DispatchTime(uptimeNanoseconds: since + stallNanoseconds)) == .success { continue }
            let stalled = state.withLock { state -> Bool in
                guard state.passed < target, max(state.lastStep, started) == since else { return false }
                state.target = .max
                return true
            }
            if stalled { return false }
        }
    }
}

/// No player runs: requests are accepted and go nowhere.
private struct DiscardedRequests: PlayerRequestSink {
    func submit(_ request: PlayerRequest, from source: String) {}
}
