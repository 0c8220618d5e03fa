internal import CGio
import FoundationEssentials

/// Why a session-bus step failed: GLib's message, and whether nobody owns the name that was called
/// (no notification server, no portal, no StatusNotifierWatcher: a desktop without it, not an error).
public struct BusFailure: Error, CustomStringConvertible, Sendable {
    public let description: String
    public let nobodyThere: Bool

    public init(_ description: String, nobodyThere: Bool = false) {
        self.description = description
        self.nobodyThere = nobodyThere
    }

    /// Reads and frees `error` (a GError; nil: "unknown error").
    public init(taking error: UnsafeMutableRawPointer?) {
        guard let error = error?.assumingMemoryBound(to: GError.self) else {
            self.init("unknown error")
            return
        }
        defer { g_error_free(error) }
        var nobody = false
        if let name = g_dbus_error_get_remote_error(error) {
            let remote = String(cString: name)
            g_free(name)
            nobody = remote == "org.freedesktop.DBus.Error.ServiceUnknown" || remote == "org.freedesktop.DBus.Error.NameHasNoOwner"
            g_dbus_error_strip_remote_error(error)  // the message in words, without "GDBus.Error:name:"
        }
        self.init(error.pointee.message.map { String(cString: $0) } ?? "unknown error", nobodyThere: nobody)
    }
}

/// A plugin's own connection to the session bus (not GLib's shared singleton, so each instance owns
/// and closes its own), its calls, bus names and the GVariant builders D-Bus plugins need (g_variant_new's
/// varargs are not callable from Swift). The desktop plugins (now playing, tray) share it. Every
/// builder's result is a floating reference that the GDBus call receiving it consumes. On the
/// plugin's GLib thread.
public enum SessionBus {
    /// Connects to $DBUS_SESSION_BUS_ADDRESS; throws the reason when there is no usable bus.
    /// `cancellable` (a GCancellable) lets teardown end an attempt that hangs (a TCP address that never answers).
    public static func connect(cancellable: UnsafeMutableRawPointer?) throws(BusFailure) -> OpaquePointer {
        let cancellable = cancellable?.assumingMemoryBound(to: GCancellable.self)
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, cancellable, &error) else {
            throw BusFailure(taking: error)
        }
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, cancellable, &error) else {
            throw BusFailure(taking: error)
        }
        g_dbus_connection_set_exit_on_close(connection, 0)  // a bus going away must not end oton
        return connection
    }

    /// A method call, bounded by `timeout` ms; the reply (to unref) or why not.
    public static func call(
        _ connection: OpaquePointer, _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ parameters: OpaquePointer?, timeout: Int32 = 5000
    ) -> Result<OpaquePointer, BusFailure> {
        var error: UnsafeMutablePointer<GError>?
        guard
            let reply = g_dbus_connection_call_sync(
                connection, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, timeout, nil, &error)
        else { return .failure(BusFailure(taking: error)) }
        return .success(reply)
    }

    /// Owns `name` without queueing; false when another connection has it.
    public static func own(_ name: String, on connection: OpaquePointer) -> Bool {
        let doNotQueue: UInt32 = 4
        guard case let .success(reply) = callBus(connection, "RequestName", oton_variant_tuple2(g_variant_new_string(name), g_variant_new_uint32(doNotQueue)))
        else { return false }
        defer { g_variant_unref(reply) }
        let result = firstChild(reply).map { g_variant_get_uint32($0) } ?? 0
        return result == 1 || result == 4  // primary owner, or already owner
    }

    public static func release(_ name: String, on connection: OpaquePointer) {
        if case let .success(reply) = callBus(connection, "ReleaseName", oton_variant_tuple1(g_variant_new_string(name))) { g_variant_unref(reply) }
    }

    /// Emits a signal; a failure (the connection closing) is dropped.
    public static func emit(_ connection: OpaquePointer, _ path: String, _ interface: String, _ name: String, _ parameters: OpaquePointer?) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(connection, nil, path, interface, name, parameters, &error) == 0 { g_error_free(error) }
    }

    /// The reply's first value (unreffed before returning: read it at once, the tuple keeps it alive).
    public static func firstChild(_ tuple: OpaquePointer) -> OpaquePointer? {
        guard g_variant_n_children(tuple) > 0, let child = g_variant_get_child_value(tuple, 0) else { return nil }
        g_variant_unref(child)
        return child
    }

    /// An a{sv} dictionary.
    public static func dictionary(_ entries: [(String, OpaquePointer?)]) -> OpaquePointer {
        let builder = g_variant_builder_new(oton_type_vardict())
        defer { g_variant_builder_unref(builder) }
        for (key, value) in entries {
            g_variant_builder_add_value(builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value)))
        }
        return g_variant_builder_end(builder)
    }

    /// An array of `type` ("v", "(ia{sv})", "i", …) from its items (possibly empty).
    public static func array(of type: String, _ items: [OpaquePointer?]) -> OpaquePointer {
        let elementType = g_variant_type_new(type)
        defer { g_variant_type_free(elementType) }
        return items.withUnsafeBufferPointer { g_variant_new_array(elementType, $0.baseAddress, gsize($0.count)) }
    }

    public static func tuple(_ items: [OpaquePointer?]) -> OpaquePointer {
        items.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    public static func strings(_ values: [String]) -> OpaquePointer {
        let copies = values.map { UnsafePointer(strdup($0)) }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return copies.withUnsafeBufferPointer { g_variant_new_strv($0.baseAddress, gssize($0.count)) }
    }

    /// The string inside a variant of type s, o or g; nil for other types.
    public static func text(_ variant: OpaquePointer?) -> String? {
        guard let variant else { return nil }
        let type = String(cString: g_variant_get_type_string(variant))
        guard type == "s" || type == "o" || type == "g", let pointer = g_variant_get_string(variant, nil) else { return nil }
        return String(cString: pointer)
    }

    private static func callBus(_ connection: OpaquePointer, _ method: String, _ parameters: OpaquePointer) -> Result<OpaquePointer, BusFailure> {
        call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, parameters)
    }
}
