import CGio
import OtonGLibThread
import PluginAPI

/// Keeps the computer from suspending while oton plays: the Inhibit portal
/// (org.freedesktop.portal.Inhibit, flag "suspend") where a portal answers, else the
/// freedesktop screensaver's Inhibit (KDE, XFCE, LXQt, and GNOME's gsd bridge), whose cookie
/// also holds off idle suspend. Released on pause and stop (and when the plugin goes).
/// Synchronous calls on the plugin's GLib thread, each bounded by a 5 s timeout.
final class SleepInhibitor {
    /// What is held now.
    enum Held: Equatable {
        /// A portal request's handle (released by its org.freedesktop.portal.Request.Close).
        case portal(handle: String)
        /// A screensaver cookie (released by UnInhibit).
        case screenSaver(cookie: UInt32)
    }

    static let portalName = "org.freedesktop.portal.Desktop"
    static let screenSaverName = "org.freedesktop.ScreenSaver"
    /// The portal's "Suspend" flag.
    static let suspendFlag: UInt32 = 4

    private let connection: OpaquePointer
    private let reason: String
    private(set) var held: Held?
    private var requests = 0
    /// Both services failed in this stretch of playing: not asked again (on every buffering step) until
    /// playing stops and starts again.
    private var failed = false

    init(connection: OpaquePointer, reason: String) {
        self.connection = connection
        self.reason = reason
    }

    /// Why no inhibitor could be taken.
    enum Failure: Equatable {
        /// Neither service runs on this bus (a desktop without them, a server).
        case noService
        /// One answered with an error or not in time: its words.
        case failed(String)
    }

    /// Takes an inhibitor unless one is held; returns why none could be taken (both services failed),
    /// once per stretch of playing.
    func hold() -> Failure? {
        guard held == nil, !failed else { return nil }
        requests += 1
        let portal = call(
            Self.portalName, "/org/freedesktop/portal/desktop", "org.freedesktop.portal.Inhibit", "Inhibit",
            [
                Variants.string(""), Variants.uint32(Self.suspendFlag),
                Variants.dictionary([("handle_token", Variants.string("oton_\(getpid())_\(requests)")), ("reason", Variants.string(reason))]),
            ])
        switch portal {
        case let .success(reply):
            if let handle = reply.text {
                held = .portal(handle: handle)
                return nil
            }
        case .failure: break
        }
        let screenSaver = call(
            Self.screenSaverName, "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver", "Inhibit",
            [Variants.string("Oton"), Variants.string(reason)])
        switch screenSaver {
        case let .success(reply):
            guard let cookie = reply.number else {
                failed = true
                return .failed("the screensaver's Inhibit answered no cookie")
            }
            held = .screenSaver(cookie: cookie)
            return nil
        case let .failure(failure):
            failed = true
            guard case let .failure(portalFailure) = portal else { return .failed("the Inhibit portal answered no request handle") }
            if portalFailure.absent && failure.absent { return .noService }
            return .failed([portalFailure, failure].filter { !$0.absent }.map(\.text).joined(separator: "; "))
        }
    }

    /// Releases what is held (nothing when nothing is).
    func release() {
        failed = false
        guard let held else { return }
        self.held = nil
        switch held {
        case let .portal(handle):
            _ = call(Self.portalName, handle, "org.freedesktop.portal.Request", "Close", [])
        case let .screenSaver(cookie):
            _ = call(Self.screenSaverName, "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver", "UnInhibit", [Variants.uint32(cookie)])
        }
    }

    struct CallFailure: Error {
        /// Nobody owns the name (and no .service file starts one).
        var absent = false
        var text: String
    }

    /// The first value of a reply, read before the reply is freed.
    struct Reply {
        /// A string or object path.
        var text: String?
        var number: UInt32?
    }

    /// One method call, bounded by 5 s.
    private func call(_ name: String, _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer?]) -> Result<Reply, CallFailure> {
        let parameters = arguments.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        var error: UnsafeMutablePointer<GError>?
        guard
            let reply = g_dbus_connection_call_sync(
                connection, name, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error)
        else {
            return .failure(Self.failure(error))
        }
        defer { g_variant_unref(reply) }
        guard g_variant_n_children(reply) > 0, let first = g_variant_get_child_value(reply, 0) else { return .success(Reply()) }
        defer { g_variant_unref(first) }
        let type = String(cString: g_variant_get_type_string(first))
        return .success(Reply(text: type == "s" || type == "o" ? Variants.text(first) : nil, number: type == "u" ? g_variant_get_uint32(first) : nil))
    }

    /// The error in words: the remote error's name stripped from its message.
    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> CallFailure {
        let failure = BusFailure(taking: error)
        return CallFailure(absent: failure.nobodyThere, text: failure.description)
    }
}
