import Foundation
import OtonCrashGuard

/// The lines that name a plugin when a fatal signal arrives while the host is inside
/// one of its callbacks: "oton: plugin ID (FILE) crashed in on_event: SIGSEGV; run it
/// with "isolation": "process" or report it to its author". Preformatted here, written
/// by the C handler with write(2) only. When oton records crashes (``PluginCrashRecord``),
/// an in-process crash is also appended to that file and its hint says that the next start
/// goes without the plugin. The C memory is never freed: a thread left stuck in a plugin
/// (abandoned at shutdown) or an audio thread may still point at it.
/// Concurrency: immutable after init (C memory written once, never freed or changed).
package struct PluginCrashCulprit: @unchecked Sendable {
    private let culprits: [PluginCall: UnsafePointer<oton_crash_guard_culprit>]

    package init(id: String, path: String) {
        let file = (path as NSString).lastPathComponent
        var culprits: [PluginCall: UnsafePointer<oton_crash_guard_culprit>] = [:]
        let recordedHint = UnsafePointer(strdup(Self.recordedHint(id: id, filter: false))!)
        let filterHint = UnsafePointer(strdup(Self.recordedHint(id: id, filter: true))!)
        for call in [PluginCall.create, .onEvent, .onMedia, .onCommand, .destroy, .filter] {
            let line = UnsafePointer(strdup("oton: plugin \(id) (\(file)) crashed in \(call.name): ")!)
            culprits[call] = Self.make(line: line, recordedHint: call == .filter ? filterHint : recordedHint)
        }
        self.culprits = culprits
    }

    /// The hint of a crash written down in the record: the next start goes without the plugin.
    static func recordedHint(id: String, filter: Bool) -> String {
        let advice = filter ? "report it to its author (a filter cannot run isolated)" : "run it with \"isolation\": \"process\" or report it to its author"
        return "; the next start of oton goes without it until `oton plugins enable \(id)`; \(advice)\n"
    }

    private static func make(line: UnsafePointer<CChar>, recordedHint: UnsafePointer<CChar>?) -> UnsafePointer<oton_crash_guard_culprit> {
        let culprit = UnsafeMutablePointer<oton_crash_guard_culprit>.allocate(capacity: 1)
        culprit.initialize(to: oton_crash_guard_culprit(line: line, recorded_hint: recordedHint))
        return UnsafePointer(culprit)
    }

    /// Runs `body` with the calling thread marked as inside `call` of this plugin.
    package func inside<R>(_ call: PluginCall, _ body: () throws -> R) rethrows -> R {
        Self.installOnce()
        let previous = oton_crash_guard_enter(culprits[call])
        defer { oton_crash_guard_leave(previous) }
        return try body()
    }

    /// The plugin's filter wrapped so that the audio thread is marked as inside it while it runs:
    /// a function and a context for the effect chain (never freed: a pipeline may call it until it stops).
    package func guardedFilter(
        _ function: @escaping @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Float>?, Int, UInt32, UInt32) -> Void,
        context: UnsafeMutableRawPointer?
    ) -> UnsafeMutableRawPointer {
        Self.installOnce()
        let guarded = UnsafeMutablePointer<oton_crash_guard_filter>.allocate(capacity: 1)
        guarded.initialize(to: oton_crash_guard_filter(function: function, context: context, culprit: culprits[.filter]))
        return UnsafeMutableRawPointer(guarded)
    }

    /// Runs a library's entry function, before its id is known: the line names the file.
    package static func insideEntry<R>(path: String, _ body: () throws -> R) rethrows -> R {
        installOnce()
        let file = (path as NSString).lastPathComponent
        let line = UnsafePointer(strdup("oton: plugin library \(file) crashed in its entry function: ")!)
        let previous = oton_crash_guard_enter(make(line: line, recordedHint: nil))
        defer { oton_crash_guard_leave(previous) }
        return try body()
    }

    /// Installs the signal handlers on first use: after the Swift runtime installed its own
    /// (its backtracer), which are then chained, not replaced.
    package static func installOnce() {
        oton_crash_guard_install()
    }
}
