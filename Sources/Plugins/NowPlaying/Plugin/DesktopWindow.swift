import CGio
import PluginAPI

/// MPRIS's Raise: the window (`oton window`, a GApplication that owns OTON_DESKTOP_APP_ID on the
/// session bus) is watched, and Raise calls its org.freedesktop.Application.Activate, which
/// presents it, as a second `oton window` would. CanRaise is true exactly while a window owns
/// that name; with none running Raise cannot show one (starting a window is the desktop file's job).
/// Lives on the plugin's GLib thread: the watch's callbacks run in its main context.
final class DesktopWindow {
    private let connection: OpaquePointer
    private var watch: guint = 0
    /// Whether a window owns the name now.
    private(set) var isRunning = false
    private let changed: () -> Void

    /// `changed` is called (on the GLib thread) when a window appears or goes.
    init(connection: OpaquePointer, changed: @escaping () -> Void) {
        self.connection = connection
        self.changed = changed
    }

    func start() {
        let box = Unmanaged.passRetained(WatchBox(window: self)).toOpaque()
        watch = g_bus_watch_name_on_connection(
            connection, OTON_DESKTOP_APP_ID, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, _, user in
                guard let user else { return }
                Unmanaged<WatchBox>.fromOpaque(user).takeUnretainedValue().window?.set(running: true)
            },
            { _, _, user in
                guard let user else { return }
                Unmanaged<WatchBox>.fromOpaque(user).takeUnretainedValue().window?.set(running: false)
            }, box,
            { user in
                if let user { Unmanaged<WatchBox>.fromOpaque(user).release() }
            })
    }

    /// Stops watching (on the GLib thread, before the connection closes).
    func stop() {
        if watch != 0 { g_bus_unwatch_name(watch) }
        watch = 0
    }

    private func set(running: Bool) {
        guard running != isRunning else { return }
        isRunning = running
        changed()
    }

    /// org.freedesktop.Application.Activate on the window's object (/org/oton/Oton): it presents itself.
    /// Asynchronous, answer unread: the window may take its time, and MPRIS's Raise returns nothing.
    func raise() {
        guard isRunning else { return }
        g_dbus_connection_call(
            connection, OTON_DESKTOP_APP_ID, Self.objectPath, "org.freedesktop.Application", "Activate",
            oton_variant_tuple1(Variants.dictionary([])), nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, nil, nil)
    }

    /// GApplication's object path: the id with '.' as '/'.
    static var objectPath: String { "/" + OTON_DESKTOP_APP_ID.split(separator: ".").joined(separator: "/") }
}

private final class WatchBox {
    weak var window: DesktopWindow?
    init(window: DesktopWindow) { self.window = window }
}
