import Foundation
import OtonCrashGuard

/// The lines that name a plugin when a fatal signal arrives while the host is inside
/// one of its callbacks: "oton: plugin ID (FILE) crashed in on_event: SIGSEGV; run it
/// with "isolation": "process" or report it to its author". Preformatted here, written
/// by the C handler with write(2) only. The C strings are never freed: a thread left
/// stuck in a plugin (abandoned at shutdown) may still point at them.
/// Concurrency: immutable after init (C strings written once, never freed or changed).
package struct PluginCrashCulprit: @unchecked Sendable {
    private let prefixes: [PluginCall: UnsafePointer<CChar>]

    package init(id: String, path: String) {
        let file = (path as NSString).lastPathComponent
        var prefixes: [PluginCall: UnsafePointer<CChar>] = [:]
        for call in [PluginCall.create, .onEvent, .onMedia, .onCommand, .destroy, .filter] {
            prefixes[call] = UnsafePointer(strdup("oton: plugin \(id) (\(file)) crashed in \(call.name): ")!)
        }
        self.prefixes = prefixes
    }

    /// Runs `body` with the calling thread marked as inside `call` of this plugin.
    package func inside<R>(_ call: PluginCall, _ body: () throws -> R) rethrows -> R {
        Self.installOnce()
        let previous = oton_crash_guard_enter(prefixes[call])
        defer { oton_crash_guard_leave(previous) }
        return try body()
    }

    /// Runs a library's entry function, before its id is known: the line names the file.
    package static func insideEntry<R>(path: String, _ body: () throws -> R) rethrows -> R {
        installOnce()
        let file = (path as NSString).lastPathComponent
        let prefix = UnsafePointer(strdup("oton: plugin library \(file) crashed in its entry function: ")!)
        let previous = oton_crash_guard_enter(prefix)
        defer { oton_crash_guard_leave(previous) }
        return try body()
    }

    /// Installs the signal handlers on first use: after the Swift runtime installed its own
    /// (its backtracer), which are then chained, not replaced.
    package static func installOnce() {
        oton_crash_guard_install()
    }
}
