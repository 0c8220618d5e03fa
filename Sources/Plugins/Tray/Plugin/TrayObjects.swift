import CGio
import FoundationEssentials
import OtonGLibThread
import TrayLogic

/// What the exported objects ask of their owner; on the plugin's GLib thread.
protocol TrayController: AnyObject {
    var menu: TrayMenu { get }
    /// The menu's labels in the user's language.
    var labels: TrayMenu.Labels { get }
    /// The tooltip's lines: the station, the track.
    var toolTip: (title: String, text: String) { get }
    func perform(_ action: TrayAction)
}

/// The StatusNotifierItem at /StatusNotifierItem and its dbusmenu at /MenuBar, on one connection.
/// GDBus dispatches their calls on the plugin's GLib thread.
final class TrayObjects {
    private let connection: OpaquePointer
    private weak var controller: TrayController?
    private var registrations: [UInt32] = []

    init(connection: OpaquePointer, controller: TrayController) {
        self.connection = connection
        self.controller = controller
    }

    func register() throws(BusFailure) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(TrayIntrospection.xml, &error) else { throw BusFailure(taking: error) }
        defer { g_dbus_node_info_unref(node) }
        let user = Unmanaged.passUnretained(self).toOpaque()
        for (path, name) in [(TrayIntrospection.itemPath, TrayIntrospection.itemInterface), (TrayIntrospection.menuPath, TrayIntrospection.menuInterface)] {
            guard let info = g_dbus_node_info_lookup_interface(node, name) else { throw BusFailure("no interface \(name)") }
            let id = g_dbus_connection_register_object(connection, path, info, &trayVTable, user, nil, &error)
            guard id != 0 else { throw BusFailure(taking: error) }
            registrations.append(id)
        }
    }

    func unregister() {
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        registrations.removeAll()
    }

    /// The menu changed: hosts read it again (LayoutUpdated of the root), and the tooltip.
    func menuChanged() {
        guard let controller else { return }
        SessionBus.emit(
            connection, TrayIntrospection.menuPath, TrayIntrospection.menuInterface, "LayoutUpdated",
            oton_variant_tuple2(g_variant_new_uint32(controller.menu.revision), g_variant_new_int32(0)))
        SessionBus.emit(connection, TrayIntrospection.itemPath, TrayIntrospection.itemInterface, "NewToolTip", nil)
    }

    // MARK: the item

    fileprivate func itemProperty(_ name: String) -> OpaquePointer? {
        guard let controller else { return nil }
        switch name {
        case "Category": return g_variant_new_string("ApplicationStatus")
        case "Id": return g_variant_new_string("oton")
        case "Title": return g_variant_new_string("Oton")
        case "Status": return g_variant_new_string("Active")
        case "IconName": return g_variant_new_string("org.oton.Oton")
        case "ItemIsMenu": return g_variant_new_boolean(0)
        case "Menu": return g_variant_new_object_path(TrayIntrospection.menuPath)
        case "ToolTip":
            let tip = controller.toolTip
            return SessionBus.tuple([
                g_variant_new_string("org.oton.Oton"), SessionBus.array(of: "(iiay)", []), g_variant_new_string(tip.title), g_variant_new_string(tip.text),
            ])
        default: return nil
        }
    }

    /// Activate (a click on the icon) opens the window; SecondaryActivate (a middle click) plays or pauses.
    fileprivate func itemMethod(_ method: String, invocation: OpaquePointer?) {
        switch method {
        case "Activate": controller?.perform(.open)
        case "SecondaryActivate": controller?.perform(.playPause)
        case "ContextMenu", "Scroll": break  // the host shows the dbusmenu itself; no scrolling meaning
        default:
            return g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
        g_dbus_method_invocation_return_value(invocation, nil)
    }

    // MARK: the menu

    fileprivate func menuProperty(_ name: String) -> OpaquePointer? {
        switch name {
        case "Version": return g_variant_new_uint32(3)
        case "TextDirection": return g_variant_new_string("ltr")
        case "Status": return g_variant_new_string("normal")
        case "IconThemePath": return SessionBus.strings([])
        default: return nil
        }
    }

    private var items: [TrayMenuItem] {
        guard let controller else { return [] }
        return controller.menu.items(controller.labels)
    }

    private static func properties(_ item: TrayMenuItem) -> OpaquePointer {
        var entries: [(String, OpaquePointer?)] = [("enabled", g_variant_new_boolean(1)), ("visible", g_variant_new_boolean(1))]
        switch item.kind {
        case .separator: entries.append(("type", g_variant_new_string("separator")))
        case .standard: entries.append(("label", g_variant_new_string(item.label)))
        case let .radio(on):
            entries += [
                ("label", g_variant_new_string(item.label)), ("toggle-type", g_variant_new_string("radio")),
                ("toggle-state", g_variant_new_int32(on ? 1 : 0)),
            ]
        }
        return SessionBus.dictionary(entries)
    }

    private static func layout(id: Int32, properties: OpaquePointer, children: [OpaquePointer?]) -> OpaquePointer {
        SessionBus.tuple([g_variant_new_int32(id), properties, SessionBus.array(of: "v", children.map { g_variant_new_variant($0) })])
    }

    fileprivate func menuMethod(_ method: String, parameters: OpaquePointer?, invocation: OpaquePointer?) {
        guard let controller else {
            return g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", "the player is gone")
        }
        let items = self.items
        func int(_ index: Int) -> Int32 { child(parameters, index).map { g_variant_get_int32($0) } ?? -1 }
        switch method {
        case "GetLayout":
            let parent = int(0)
            let tree: OpaquePointer
            if parent == 0 {
                let root = SessionBus.dictionary([("children-display", g_variant_new_string("submenu"))])
                tree = Self.layout(id: 0, properties: root, children: items.map { Self.layout(id: $0.id, properties: Self.properties($0), children: []) })
            } else if let item = items.first(where: { $0.id == parent }) {
                tree = Self.layout(id: item.id, properties: Self.properties(item), children: [])
            } else {
                return Self.invalid(invocation, "no menu item \(parent)")
            }
            g_dbus_method_invocation_return_value(invocation, oton_variant_tuple2(g_variant_new_uint32(controller.menu.revision), tree))
        case "GetGroupProperties":
            let wanted = Set(ints(child(parameters, 0)))
            let found = items.filter { wanted.isEmpty || wanted.contains($0.id) }
                .map { SessionBus.tuple([g_variant_new_int32($0.id), Self.properties($0)]) }
            g_dbus_method_invocation_return_value(invocation, oton_variant_tuple1(SessionBus.array(of: "(ia{sv})", found)))
        case "GetProperty":
            let id = int(0)
            guard let item = items.first(where: { $0.id == id }), let name = SessionBus.text(child(parameters, 1)),
                let value = Self.value(of: name, in: Self.properties(item))
            else { return Self.invalid(invocation, "no such menu item or property") }
            g_dbus_method_invocation_return_value(invocation, oton_variant_tuple1(g_variant_new_variant(value)))
        case "Event":
            let id = int(0)
            guard controller.menu.action(for: id) != nil || items.contains(where: { $0.id == id }) else {
                return Self.invalid(invocation, "no menu item \(id)")
            }
            if SessionBus.text(child(parameters, 1)) == "clicked", let action = controller.menu.action(for: id) { controller.perform(action) }
            g_dbus_method_invocation_return_value(invocation, nil)
        case "EventGroup":
            var errors: [OpaquePointer?] = []
            let events = child(parameters, 0)
            for index in 0..<(events.map { Int(g_variant_n_children($0)) } ?? 0) {
                guard let event = g_variant_get_child_value(events, gsize(index)) else { continue }
                defer { g_variant_unref(event) }
                let id = child(event, 0).map { g_variant_get_int32($0) } ?? -1
                if let action = controller.menu.action(for: id) {
                    if SessionBus.text(child(event, 1)) == "clicked" { controller.perform(action) }
                } else {
                    errors.append(g_variant_new_int32(id))
                }
            }
            g_dbus_method_invocation_return_value(invocation, oton_variant_tuple1(SessionBus.array(of: "i", errors)))
        case "AboutToShow":
            g_dbus_method_invocation_return_value(invocation, oton_variant_tuple1(g_variant_new_boolean(0)))
        case "AboutToShowGroup":
            let known = Set(items.map(\.id) + [0])
            let errors = ints(child(parameters, 0)).filter { !known.contains($0) }.map { g_variant_new_int32($0) }
            g_dbus_method_invocation_return_value(invocation, oton_variant_tuple2(SessionBus.array(of: "i", []), SessionBus.array(of: "i", errors)))
        default:
            g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
    }

    private static func invalid(_ invocation: OpaquePointer?, _ message: String) {
        g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.InvalidArgs", message)
    }

    /// One entry's value of an a{sv} (a new reference), nil when absent.
    private static func value(of key: String, in dictionary: OpaquePointer) -> OpaquePointer? {
        g_variant_ref_sink(dictionary)
        defer { g_variant_unref(dictionary) }
        return g_variant_lookup_value(dictionary, key, nil)
    }
}

/// A tuple's child at `index` (borrowed from the tuple: read it while the tuple lives).
private func child(_ tuple: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guard let tuple, g_variant_n_children(tuple) > index, let value = g_variant_get_child_value(tuple, gsize(index)) else { return nil }
    g_variant_unref(value)
    return value
}

/// The items of an `ai`.
private func ints(_ array: OpaquePointer?) -> [Int32] {
    guard let array, String(cString: g_variant_get_type_string(array)) == "ai" else { return [] }
    return (0..<Int(g_variant_n_children(array))).compactMap { index in
        child(array, index).map { g_variant_get_int32($0) }
    }
}

private func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

private func objects(_ user: UnsafeMutableRawPointer?) -> TrayObjects? {
    user.map { Unmanaged<TrayObjects>.fromOpaque($0).takeUnretainedValue() }
}

/// Lives for the process: GDBus keeps a pointer to the vtable while the objects are registered.
/// Concurrency: initialised once (a global's lazy init is thread-safe), read by GDBus on the GLib thread.
nonisolated(unsafe) private var trayVTable: GDBusInterfaceVTable = {
    var table = GDBusInterfaceVTable()
    table.method_call = { _, _, _, interface, method, parameters, invocation, user in
        guard let objects = objects(user) else {
            return g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", "the player is gone")
        }
        if string(interface) == TrayIntrospection.itemInterface {
            objects.itemMethod(string(method), invocation: invocation)
        } else {
            objects.menuMethod(string(method), parameters: parameters, invocation: invocation)
        }
    }
    table.get_property = { _, _, _, interface, name, error, user in
        let objects = objects(user)
        let value =
            string(interface) == TrayIntrospection.itemInterface ? objects?.itemProperty(string(name)) : objects?.menuProperty(string(name))
        guard let value else {
            g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "no such property")
            return nil
        }
        return value
    }
    return table
}()
