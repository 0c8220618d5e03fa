import CGio
import NowPlayingLogic

/// org.freedesktop.Notifications.Notify, each notification replacing the
/// previous one (replaces_id) instead of stacking.
/// https://specifications.freedesktop.org/notification-spec/1.2/
final class DesktopNotifier {
    private let connection: OpaquePointer
    private let timeoutMilliseconds: Int32
    private var lastID: UInt32 = 0

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
        var hints: [(String, OpaquePointer)] = [("desktop-entry", Variants.string("oton")),
                                                ("category", Variants.string("x-oton.track"))]
        if let image = notification.imagePath { hints.append(("image-path", Variants.string(image))) }
        let items: [OpaquePointer?] = [
            Variants.string("oton"), Variants.uint32(lastID), Variants.string(""),
            Variants.string(notification.summary), Variants.string(notification.body),
            oton_variant_empty_strv(), Variants.dictionary(hints), Variants.int32(timeoutMilliseconds),
        ]
        let parameters = items.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                                      "org.freedesktop.Notifications", "Notify", parameters,
                                                      oton_type_uint32_reply(), G_DBUS_CALL_FLAGS_NONE, 2000, nil, &error) else {
            return Self.failure(error)
        }
        defer { g_variant_unref(reply) }
        let child = g_variant_get_child_value(reply, 0)
        lastID = g_variant_get_uint32(child)
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
