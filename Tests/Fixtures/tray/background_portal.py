#!/usr/bin/python3
"""The background portal's D-Bus side (org.freedesktop.portal.Background on
org.freedesktop.portal.Desktop, /org/freedesktop/portal/desktop), as xdg-desktop-portal serves it,
for the tray plugin's tests: each RequestBackground call is recorded as one JSON line in the file
given as the argument, answered with its request handle, and followed by the Request's Response
(0, granted). https://flatpak.github.io/xdg-desktop-portal/docs/doc-org.freedesktop.portal.Background.html

    background_portal.py RECORD_FILE
"""
import json
import sys

from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.freedesktop.portal.Background">
    <method name="RequestBackground">
      <arg type="s" name="parent_window" direction="in"/>
      <arg type="a{sv}" name="options" direction="in"/>
      <arg type="o" name="handle" direction="out"/>
    </method>
    <property name="version" type="u" access="read"/>
  </interface>
</node>
"""

record = sys.argv[1]


def method_call(connection, sender, path, interface, method, parameters, invocation):
    if method != "RequestBackground":
        return invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)
    parent, options = parameters.unpack()
    token = options.get("handle_token", "t")
    handle = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender[1:].replace(".", "_"), token)
    with open(record, "a") as out:
        out.write(json.dumps({"sender": sender, "parent_window": parent, "options": options}) + "\n")
    invocation.return_value(GLib.Variant("(o)", (handle,)))
    results = {"background": GLib.Variant("b", True), "autostart": GLib.Variant("b", False)}
    connection.emit_signal(sender, handle, "org.freedesktop.portal.Request", "Response", GLib.Variant("(ua{sv})", (0, results)))


def get_property(connection, sender, path, interface, name):
    return GLib.Variant("u", 2) if name == "version" else None


def bus_acquired(connection, name):
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    connection.register_object("/org/freedesktop/portal/desktop", info, method_call, get_property, None)


loop = GLib.MainLoop()
Gio.bus_own_name(
    Gio.BusType.SESSION, "org.freedesktop.portal.Desktop", Gio.BusNameOwnerFlags.NONE, bus_acquired, None,
    lambda *_: (sys.stderr.write("lost the name org.freedesktop.portal.Desktop\n"), loop.quit()))
loop.run()
