import CGio
import FoundationEssentials

/// The tray's own connection to the session bus (not GLib's shared one: the instance owns and closes
/// it), its calls and the GVariant builders it needs. On the plugin's GLib thread.
enum TrayBus {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// Nobody owns the called name (no watcher, no portal, no notification server).
        var nobodyThere = false
    }

    /// Connects to $DBUS_SESSION_BUS_ADDRESS; throws the reason when there is no usable bus.
    static func connect(cancellable: UnsafeMutablePointer<GCancellable>?) throws(Failure) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, cancellable, &error) else { throw failure(error) }
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, cancellable, &error) else { throw failure(error) }
        g_dbus_connection_set_exit_on_close(connection, 0)  // a bus going away must not end oton
        return connection
    }

    /// A method call, bounded by `timeout` ms; the reply (to unref) or why not.
    static func call(
        _ connection: OpaquePointer, _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ parameters: OpaquePointer?, timeout: Int32 = 2000
    ) -> Result<OpaquePointer, Failure> {
        var error: UnsafeMutablePointer<GError>?
        guard
            let reply = g_dbus_connection_call_sync(
                connection, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, timeout, nil, &error)
        else { return .failure(failure(error)) }
        return .success(reply)
    }

    /// Owns `name` (no queueing); false when another connection has it.
    static func own(_ name: String, on connection: OpaquePointer) -> Bool {
        let doNotQueue: UInt32 = 4
        guard
            case let .success(reply) = call(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                oton_variant_tuple2(g_variant_new_string(name), g_variant_new_uint32(doNotQueue)))
        else { return false }
        defer { g_variant_unref(reply) }
        let result = firstChild(reply).map { g_variant_get_uint32($0) } ?? 0
        return result == 1 || result == 4
    }

    /// Emits a signal; a failure (the connection closing) is dropped.
    static func emit(_ connection: OpaquePointer, _ path: String, _ interface: String, _ name: String, _ parameters: OpaquePointer?) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(connection, nil, path, interface, name, parameters, &error) == 0 { g_error_free(error) }
    }

    /// The reply's first value (unreffed before returning: read it at once).
    static func firstChild(_ tuple: OpaquePointer) -> OpaquePointer? {
        guard g_variant_n_children(tuple) > 0, let child = g_variant_get_child_value(tuple, 0) else { return nil }
        g_variant_unref(child)  // the tuple keeps it alive
        return child
    }

    /// An a{sv} dictionary.
    static func dictionary(_ entries: [(String, OpaquePointer?)]) -> OpaquePointer {
        let builder = g_variant_builder_new(oton_type_vardict())
        defer { g_variant_builder_unref(builder) }
        for (key, value) in entries {
            g_variant_builder_add_value(builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value)))
        }
        return g_variant_builder_end(builder)
    }

    /// An array of `type` ("v", "(ia{sv})", "i", …) from its items (possibly empty).
    static func array(of type: String, _ items: [OpaquePointer?]) -> OpaquePointer {
        let elementType = g_variant_type_new(type)
        defer { g_variant_type_free(elementType) }
        return items.withUnsafeBufferPointer { g_variant_new_array(elementType, $0.baseAddress, gsize($0.count)) }
    }

    static func tuple(_ items: [OpaquePointer?]) -> OpaquePointer {
        items.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    static func strings(_ values: [String]) -> OpaquePointer {
        let copies = values.map { UnsafePointer(strdup($0)) }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return copies.withUnsafeBufferPointer { g_variant_new_strv($0.baseAddress, gssize($0.count)) }
    }

    /// The string of a variant of type s (nil for another type).
    static func text(_ variant: OpaquePointer?) -> String? {
        guard let variant, String(cString: g_variant_get_type_string(variant)) == "s" else { return nil }
        return String(cString: g_variant_get_string(variant, nil))
    }

    static func failure(_ error: UnsafeMutablePointer<GError>?) -> Failure {
        guard let error else { return Failure(description: "unknown error") }
        defer { g_error_free(error) }
        var nobody = false
        if let name = g_dbus_error_get_remote_error(error) {
            let remote = String(cString: name)
            g_free(name)
            nobody = remote == "org.freedesktop.DBus.Error.ServiceUnknown" || remote == "org.freedesktop.DBus.Error.NameHasNoOwner"
        }
        return Failure(description: error.pointee.message.map { String(cString: $0) } ?? "unknown error", nobodyThere: nobody)
    }
}
