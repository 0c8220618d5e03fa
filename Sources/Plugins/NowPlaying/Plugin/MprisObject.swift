import CGio
import NowPlayingLogic
import PluginAPI

/// What the MPRIS object asks of its owner. Called on the plugin's GLib thread.
protocol MprisController: AnyObject {
    var model: NowPlayingModel { get }
    /// Play, Pause, PlayPause, Stop, Quit become host requests.
    func request(_ kind: oton_request_kind)
    /// OpenUri: play this http(s) stream or playlist URL (OTON_REQUEST_SWITCH_STATION).
    func switchStation(to url: String)
    /// A client wrote the Volume property.
    func requestVolume(_ volume: Double)
    /// Timeshift (docs/timeshift.md): where playback is in the ring (µs), nil when there is none.
    var position: Int64? { get }
    /// Seek (by µs) and SetPosition (to µs); the Seeked signal follows when done.
    func seek(byMicroseconds offset: Int64)
    func setPosition(_ position: Int64)
    /// Whether a window runs that Raise can show, and Raise itself.
    var canRaise: Bool { get }
    func raise()
}

/// /org/mpris/MediaPlayer2 with its two interfaces, registered on a connection.
/// Lives on the plugin's GLib thread: GDBus dispatches its callbacks there.
final class MprisObject {
    private let connection: OpaquePointer
    private weak var controller: MprisController?
    private var registrations: [UInt32] = []

    init(connection: OpaquePointer, controller: MprisController) {
        self.connection = connection
        self.controller = controller
    }

    /// Registers both interfaces; throws a message on failure.
    func register() throws(MprisError) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(MprisIntrospection.xml, &error) else {
            throw MprisError("introspection data: \(takeError(error))")
        }
        defer { g_dbus_node_info_unref(node) }
        let user = Unmanaged.passUnretained(self).toOpaque()
        for name in [MprisIntrospection.rootInterface, MprisIntrospection.playerInterface] {
            guard let info = g_dbus_node_info_lookup_interface(node, name) else { throw MprisError("no interface \(name)") }
            let id = g_dbus_connection_register_object(
                connection, MprisIntrospection.objectPath, info,
                &mprisVTable, user, nil, &error)
            guard id != 0 else { throw MprisError("cannot register \(name): \(takeError(error))") }
            registrations.append(id)
        }
    }

    func unregister() {
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        registrations.removeAll()
    }

    /// Emits org.freedesktop.DBus.Properties.PropertiesChanged for Player (or, given, root) properties.
    func propertiesChanged(_ names: [String], of interface: String = MprisIntrospection.playerInterface) {
        guard let controller, !names.isEmpty else { return }
        let entries = names.compactMap { name in
            MprisProperties.value(
                interface: interface, name: name, model: controller.model,
                position: controller.position, canRaise: controller.canRaise
            ).map { (name, $0) }
        }
        let parameters = oton_variant_tuple3(
            Variants.string(interface),
            Variants.dictionary(entries), oton_variant_empty_strv())
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(
            connection, nil, MprisIntrospection.objectPath, "org.freedesktop.DBus.Properties",
            "PropertiesChanged", parameters, &error) == 0
        {
            g_error_free(error)
        }
    }

    // MARK: dispatch from the vtable

    fileprivate func methodCall(interface: String, method: String, parameters: OpaquePointer?, invocation: OpaquePointer?) {
        let kind: oton_request_kind?
        switch (interface, method) {
        case (MprisIntrospection.rootInterface, "Quit"): kind = OTON_REQUEST_QUIT
        case (MprisIntrospection.rootInterface, "Raise"):
            controller?.raise()  // presents the window; nothing when none runs (CanRaise is false then)
            kind = nil
        case (MprisIntrospection.playerInterface, "Play"): kind = OTON_REQUEST_PLAY
        case (MprisIntrospection.playerInterface, "Pause"): kind = OTON_REQUEST_PAUSE
        case (MprisIntrospection.playerInterface, "PlayPause"): kind = OTON_REQUEST_PLAY_PAUSE
        case (MprisIntrospection.playerInterface, "Stop"): kind = OTON_REQUEST_STOP
        case (MprisIntrospection.playerInterface, "Next"): kind = OTON_REQUEST_NEXT_STATION  // stations, wrapping
        case (MprisIntrospection.playerInterface, "Previous"): kind = OTON_REQUEST_PREV_STATION
        case (MprisIntrospection.playerInterface, "Seek"):
            // Without timeshift CanSeek is false, and this does nothing (as the spec says).
            if let parameters, let offset = Self.int64(parameters, child: 0) { controller?.seek(byMicroseconds: offset) }
            kind = nil
        case (MprisIntrospection.playerInterface, "SetPosition"):
            if let parameters, let position = Self.int64(parameters, child: 1), position >= 0 { controller?.setPosition(position) }
            kind = nil
        case (MprisIntrospection.playerInterface, "OpenUri"):
            var text = ""
            if let parameters, g_variant_n_children(parameters) == 1, let child = g_variant_get_child_value(parameters, 0) {
                if String(cString: g_variant_get_type_string(child)) == "s", let string = g_variant_get_string(child, nil) {
                    text = String(cString: string)
                }
                g_variant_unref(child)
            }
            let lower = text.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.InvalidArgs",
                    "oton opens http:// and https:// stream and playlist URLs, not \(text)")
                return
            }
            controller?.switchStation(to: text)
            g_dbus_method_invocation_return_value(invocation, nil)
            return
        default:
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.UnknownMethod",
                "no method \(method) in \(interface)")
            return
        }
        if let kind { controller?.request(kind) }
        g_dbus_method_invocation_return_value(invocation, nil)
    }

    fileprivate func getProperty(interface: String, name: String) -> OpaquePointer? {
        guard let controller else { return nil }
        return MprisProperties.value(
            interface: interface, name: name, model: controller.model, position: controller.position, canRaise: controller.canRaise)
    }

    /// The `x` (int64) argument at `child` of a method's parameters.
    private static func int64(_ parameters: OpaquePointer, child index: Int) -> Int64? {
        guard g_variant_n_children(parameters) > index, let child = g_variant_get_child_value(parameters, gsize(index)) else { return nil }
        defer { g_variant_unref(child) }
        guard String(cString: g_variant_get_type_string(child)) == "x" else { return nil }
        return Int64(g_variant_get_int64(child))
    }

    /// Emits the Seeked signal (after a Seek or SetPosition, or a seek from elsewhere).
    func seeked(to position: Int64) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(
            connection, nil, MprisIntrospection.objectPath, MprisIntrospection.playerInterface,
            "Seeked", oton_variant_tuple1(Variants.int64(position)), &error) == 0
        {
            g_error_free(error)
        }
    }

    fileprivate func setProperty(interface: String, name: String, value: OpaquePointer?) -> Bool {
        guard interface == MprisIntrospection.playerInterface, let value,
            String(cString: g_variant_get_type_string(value)) == "d"
        else { return false }
        let number = g_variant_get_double(value)
        switch name {
        case "Volume":
            guard number.isFinite else { return false }
            controller?.requestVolume(min(max(number, 0), 1))
            return true
        case "Rate":
            return number == 1.0  // the only rate a live stream has
        default:
            return false
        }
    }
}

struct MprisError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

private func object(_ user: UnsafeMutableRawPointer?) -> MprisObject? {
    user.map { Unmanaged<MprisObject>.fromOpaque($0).takeUnretainedValue() }
}

/// Lives for the process: GDBus keeps a pointer to (or a copy of) the vtable while objects are registered.
/// Concurrency: initialised once (a global's lazy init is thread-safe) and never written after; GDBus
/// reads it on the GLib thread.
nonisolated(unsafe) private var mprisVTable: GDBusInterfaceVTable = {
    var table = GDBusInterfaceVTable()
    table.method_call = { _, _, _, interface, method, parameters, invocation, user in
        guard let object = object(user) else {
            g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", "player is gone")
            return
        }
        object.methodCall(interface: string(interface), method: string(method), parameters: parameters, invocation: invocation)
    }
    table.get_property = { _, _, _, interface, name, error, user in
        guard let value = object(user)?.getProperty(interface: string(interface), name: string(name)) else {
            g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "no such property")
            return nil
        }
        return value
    }
    table.set_property = { _, _, _, interface, name, value, error, user in
        guard object(user)?.setProperty(interface: string(interface), name: string(name), value: value) == true else {
            g_set_error_literal(
                error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_PROPERTY_READ_ONLY.rawValue),
                "\(string(name)) cannot be set to that value")
            return 0
        }
        return 1
    }
    return table
}()
