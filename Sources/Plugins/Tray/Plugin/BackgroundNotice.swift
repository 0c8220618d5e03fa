import CGio
import FoundationEssentials
import OtonGLibThread
import TrayLogic

/// What a player left playing by its closed window says: a desktop notification with Open, Pause
/// and Quit (org.freedesktop.Notifications with actions; ActionInvoked answers them), and a request
/// to the background portal (org.freedesktop.portal.Background) where one runs.
/// https://specifications.freedesktop.org/notification-spec/1.2/
/// https://flatpak.github.io/xdg-desktop-portal/docs/doc-org.freedesktop.portal.Background.html
final class BackgroundNotice {
    private let connection: OpaquePointer
    private var notificationID: UInt32 = 0
    private var subscription: guint = 0
    private let onAction: (TrayAction) -> Void

    static let openKey = "open", pauseKey = "pause", quitKey = "quit"

    /// `onAction` gets what a clicked action asks (Open: .open, Pause: .playPause, Quit: .quit).
    init(connection: OpaquePointer, onAction: @escaping (TrayAction) -> Void) {
        self.connection = connection
        self.onAction = onAction
        let box = Unmanaged.passUnretained(self).toOpaque()
        subscription = g_dbus_connection_signal_subscribe(
            connection, nil, "org.freedesktop.Notifications", "ActionInvoked", "/org/freedesktop/Notifications", nil,
            G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, user in
                guard let user, let parameters, g_variant_n_children(parameters) == 2 else { return }
                let notice = Unmanaged<BackgroundNotice>.fromOpaque(user).takeUnretainedValue()
                let idValue = g_variant_get_child_value(parameters, 0), keyValue = g_variant_get_child_value(parameters, 1)
                defer { g_variant_unref(idValue); g_variant_unref(keyValue) }
                guard g_variant_is_of_type(idValue, oton_type_uint32()) != 0, let key = SessionBus.text(keyValue) else { return }
                notice.invoked(id: g_variant_get_uint32(idValue), key: key)
            }, box, nil)
    }

    /// Before the connection closes (on the GLib thread).
    func stop() {
        if subscription != 0 { g_dbus_connection_signal_unsubscribe(connection, subscription) }
        subscription = 0
    }

    private func invoked(id: UInt32, key: String) {
        guard id != 0, id == notificationID else { return }
        switch key {
        case Self.openKey, "default": onAction(.open)
        case Self.pauseKey: onAction(.playPause)
        case Self.quitKey: onAction(.quit)
        default: break
        }
    }

    /// Shows (or replaces) the notification; the reason when it was not shown.
    func show(summary: String, body: String, labels: (open: String, pause: String, quit: String), timeout: Int32) -> BusFailure? {
        let actions = SessionBus.strings(["default", labels.open, Self.openKey, labels.open, Self.pauseKey, labels.pause, Self.quitKey, labels.quit])
        let hints = SessionBus.dictionary([
            ("desktop-entry", g_variant_new_string("org.oton.Oton")), ("category", g_variant_new_string("x-oton.background")),
        ])
        let parameters = SessionBus.tuple([
            g_variant_new_string("Oton"), g_variant_new_uint32(notificationID), g_variant_new_string("org.oton.Oton"),
            g_variant_new_string(summary), g_variant_new_string(body), actions, hints, g_variant_new_int32(timeout),
        ])
        switch SessionBus.call(
            connection, "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify", parameters)
        {
        case let .success(reply):
            if let id = SessionBus.firstChild(reply), String(cString: g_variant_get_type_string(id)) == "u" { notificationID = g_variant_get_uint32(id) }
            g_variant_unref(reply)
            return nil
        case let .failure(failure):
            return failure
        }
    }

    /// Asks the background portal to let this player run on without a window; the reason when there
    /// is none or it refused the call (the portal's own answer, a Response signal, is not waited for).
    func requestBackground(reason: String) -> BusFailure? {
        let options = SessionBus.dictionary([
            ("handle_token", g_variant_new_string("oton\(getpid())")), ("reason", g_variant_new_string(reason)),
            ("autostart", g_variant_new_boolean(0)), ("dbus-activatable", g_variant_new_boolean(0)),
        ])
        switch SessionBus.call(
            connection, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.Background",
            "RequestBackground", oton_variant_tuple2(g_variant_new_string(""), options))
        {
        case let .success(reply):
            g_variant_unref(reply)
            return nil
        case let .failure(failure):
            return failure
        }
    }
}
