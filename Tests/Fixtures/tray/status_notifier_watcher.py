#!/usr/bin/python3
"""A StatusNotifierWatcher (org.kde.StatusNotifierWatcher, as KDE's plasmashell, GNOME's AppIndicator
extension and XFCE's panel run one) on the session bus DBUS_SESSION_BUS_ADDRESS names, for the tray
plugin's tests. It records each RegisterStatusNotifierItem as one line, "SENDER SERVICE", in the file
given as its argument, and emits StatusNotifierItemRegistered as the protocol says.
https://www.freedesktop.org/wiki/Specifications/StatusNotifierItem/StatusNotifierWatcher/

    status_notifier_watcher.py RECORD_FILE
"""
import sys

from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.kde.StatusNotifierWatcher">
    <method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
    <method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
    <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
    <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
    <property name="ProtocolVersion" type="i" access="read"/>
    <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
    <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
    <signal name="StatusNotifierHostRegistered"/>
  </interface>
</node>
"""

record = sys.argv[1]
items = []


def method_call(connection, sender, path, interface, method, parameters, invocation):
    if method == "RegisterStatusNotifierItem":
        service = parameters.unpack()[0]
        # An item may pass its object path instead of a bus name; then the sender is the service.
        name = sender if service.startswith("/") else service
        items.append(name)
        with open(record, "a") as out:
            out.write("%s %s\n" % (sender, service))
        connection.emit_signal(None, path, interface, "StatusNotifierItemRegistered", GLib.Variant("(s)", (name,)))
        invocation.return_value(None)
    elif method == "RegisterStatusNotifierHost":
        invocation.return_value(None)
    else:
        invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)


def get_property(connection, sender, path, interface, name):
    if name == "RegisteredStatusNotifierItems":
        return GLib.Variant("as", items)
    if name == "IsStatusNotifierHostRegistered":
        return GLib.Variant("b", True)
    if name == "ProtocolVersion":
        return GLib.Variant("i", 0)
    return None


def bus_acquired(connection, name):
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    connection.register_object("/StatusNotifierWatcher", info, method_call, get_property, None)


loop = GLib.MainLoop()
Gio.bus_own_name(
    Gio.BusType.SESSION, "org.kde.StatusNotifierWatcher", Gio.BusNameOwnerFlags.NONE, bus_acquired, None,
    lambda *_: (sys.stderr.write("lost the name org.kde.StatusNotifierWatcher\n"), loop.quit()))
loop.run()
