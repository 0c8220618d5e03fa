import CGio
import NowPlayingLogic
import PluginAPI

/// org.freedesktop.Notifications.Notify, each notification replacing the
/// previous one (replaces_id) instead of stacking.
/// https://specifications.freedesktop.org/notification-spec/1.2/
final class DesktopNotifier {
    private let connection: OpaquePointer
    private let timeoutMilliseconds: Int32
    private var lastID: UInt32 = 0
    /// The wish notification (its own, so a track's does not replace it), and its action's key.
    private(set) var wishID: UInt32 = 0
    static let switchToWishAction = "switch-to-wish"
    private var actionSubscription: guint = 0

    init(connection: OpaquePointer, timeoutMilliseconds: Int32) {
        self.connection = connection
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Why a notification was not shown.
    enum Failure: Equatable {
        /// Nobody owns org.freedesktop.Notifications: a desktop (or a server) without a notification daemon.
        case noServer
        /// The server answered with an error, or did not answer in time.
        case failed(String)
    }

    /// Shows the notification; returns why not when the server refused or is missing.
    /// Synchronous on the plugin's own GLib thread, bounded by a 2 s timeout.
    func show(_ notification: NowPlayingModel.Notification) -> Failure? {
        notify(notification, replacing: &lastID, actions: oton_variant_empty_strv(), category: "x-oton.track")
    }

    /// "watch_wishes": a wish plays on another station; the action switches there (ActionInvoked → `onSwitch`).
    func showWish(summary: String, body: String, actionLabel: String) -> Failure? {
        notify(
            NowPlayingModel.Notification(summary: summary, body: body, imagePath: nil), replacing: &wishID,
            actions: oton_variant_strv2(Self.switchToWishAction, actionLabel), category: "x-oton.wish")
    }

    /// Listens for the notification server's ActionInvoked (on the calling thread's GLib context): the wish
    /// notification's switch action calls `onSwitch`.
    func listenForActions(_ onSwitch: @escaping () -> Void) {
        let box = Unmanaged.passRetained(ActionBox(notifier: self, onSwitch: onSwitch)).toOpaque()
        actionSubscription = g_dbus_connection_signal_subscribe(
            connection, nil, "org.freedesktop.Notifications", "ActionInvoked", "/org/freedesktop/Notifications", nil,
            G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, user in
                guard let user, let parameters, g_variant_n_children(parameters) == 2 else { return }
                let box = Unmanaged<ActionBox>.fromOpaque(user).takeUnretainedValue()
                let idValue = g_variant_get_child_value(parameters, 0), keyValue = g_variant_get_child_value(parameters, 1)
                defer { g_variant_unref(idValue); g_variant_unref(keyValue) }
                guard g_variant_is_of_type(idValue, oton_type_uint32()) != 0, g_variant_is_of_type(keyValue, oton_type_string()) != 0 else { return }
                let id = g_variant_get_uint32(idValue)
                let key = String(cString: g_variant_get_string(keyValue, nil))
                guard let notifier = box.notifier, id != 0, id == notifier.wishID, key == DesktopNotifier.switchToWishAction else { return }
                box.onSwitch()
            }, box,
            { user in
                if let user { Unmanaged<ActionBox>.fromOpaque(user).release() }
            })
    }

    /// Stops listening (on the GLib thread, before the connection closes).
    func stopListening() {
        if actionSubscription != 0 { g_dbus_connection_signal_unsubscribe(connection, actionSubscription) }
        actionSubscription = 0
    }

    private func notify(
        _ notification: NowPlayingModel.Notification, replacing id: inout UInt32, actions: OpaquePointer?,
        category: String
    ) -> Failure? {
        var hints: [(String, OpaquePointer)] = [
            ("desktop-entry", Variants.string(OTON_DESKTOP_APP_ID)),  // the .desktop file's id: the desktop's icon and name
            ("category", Variants.string(category)),
        ]
        if let image = notification.imagePath { hints.append(("image-path", Variants.string(image))) }
        let items: [OpaquePointer?] = [
            Variants.string("oton"), Variants.uint32(id), Variants.string(""),
            Variants.string(notification.summary), Variants.string(notification.body),
            actions, Variants.dictionary(hints), Variants.int32(timeoutMilliseconds),
        ]
        let parameters = items.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        var error: UnsafeMutablePointer<GError>?
        guard
            let reply = g_dbus_connection_call_sync(
                connection, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications", "Notify", parameters,
                oton_type_uint32_reply(), G_DBUS_CALL_FLAGS_NONE, 2000, nil, &error)
        else {
            return Self.failure(error)
        }
        defer { g_variant_unref(reply) }
        let child = g_variant_get_child_value(reply, 0)
        id = g_variant_get_uint32(child)
        g_variant_unref(child)
        return nil
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> Failure {
        if let error, let name = g_dbus_error_get_remote_error(error) {
            defer { g_free(name) }
            let remote = String(cString: name)
            if remote == "org.freedesktop.DBus.Error.ServiceUnknown" || remote == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                g_error_free(error)
                return .noServer
            }
        }
        return .failed(takeError(error))
    }
}

/// What the ActionInvoked callback needs; released when the subscription goes.
private final class ActionBox {
    weak var notifier: DesktopNotifier?
    let onSwitch: () -> Void

    init(notifier: DesktopNotifier, onSwitch: @escaping () -> Void) {
        self.notifier = notifier
        self.onSwitch = onSwitch
    }
}
