import CGio
import FoundationEssentials

/// A private connection to the session bus (not GLib's shared singleton, so
/// each instance owns, and closes, its own), and bus-name ownership.
enum SessionBus {
    /// Connects to $DBUS_SESSION_BUS_ADDRESS; throws the reason when there is no usable bus.
    /// `cancellable` lets destroy end a connection attempt that hangs (a TCP address that never answers).
    static func connect(cancellable: UnsafeMutablePointer<GCancellable>?) throws(MprisError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, cancellable, &error) else {
            throw MprisError(takeError(error))
        }
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, cancellable, &error) else {
            throw MprisError(takeError(error))
        }
        g_dbus_connection_set_exit_on_close(connection, 0)  // a bus going away must not end oton
        return connection
    }

    /// Requests `name`, else `name.instance<pid>` when another player has it. Returns the name owned.
    static func own(_ name: String, on connection: OpaquePointer) throws(MprisError) -> String {
        if try request(name, on: connection) { return name }
        let fallback = "\(name).instance\(getpid())"
        if try request(fallback, on: connection) { return fallback }
        throw MprisError("\(name) and \(fallback) are both taken")
    }

    static func release(_ name: String, on connection: OpaquePointer) {
        _ = call(connection, "ReleaseName", oton_variant_tuple1(Variants.string(name)))
    }

    private static func request(_ name: String, on connection: OpaquePointer) throws(MprisError) -> Bool {
        let doNotQueue: UInt32 = 4
        guard let reply = call(connection, "RequestName", oton_variant_tuple2(Variants.string(name), Variants.uint32(doNotQueue))) else {
            throw MprisError("RequestName \(name) failed")
        }
        defer { g_variant_unref(reply) }
        let child = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(child) }
        let result = g_variant_get_uint32(child)
        return result == 1 || result == 4  // primary owner, or already owner
    }

    private static func call(_ connection: OpaquePointer, _ method: String, _ parameters: OpaquePointer) -> OpaquePointer? {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error)
        if reply == nil { g_error_free(error) }
        return reply
    }
}
