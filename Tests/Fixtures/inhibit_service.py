#!/usr/bin/env python3
"""A desktop's inhibit service on a private session bus, speaking its documented protocol.

  --kind portal       org.freedesktop.portal.Desktop at /org/freedesktop/portal/desktop:
                      org.freedesktop.portal.Inhibit.Inhibit(s window, u flags, a{sv} options) -> o handle,
                      the handle an org.freedesktop.portal.Request whose Close releases it
                      (https://flatpak.github.io/xdg-desktop-portal/docs/doc-org.freedesktop.portal.Inhibit.html)
  --kind screensaver  org.freedesktop.ScreenSaver at /org/freedesktop/ScreenSaver:
                      Inhibit(s application, s reason) -> u cookie, UnInhibit(u cookie)

Prints "READY 1" once it owns its name, then one line per call:
  INHIBIT <flags> <handle-or-cookie> <reason>     RELEASE <handle-or-cookie>
and refuses a release of something it never handed out (as the real services do).
"""
import argparse
import sys

from gi.repository import Gio, GLib

PORTAL_XML = """
<node>
  <interface name="org.freedesktop.portal.Inhibit">
    <method name="Inhibit">
      <arg type="s" name="window" direction="in"/>
      <arg type="u" name="flags" direction="in"/>
      <arg type="a{sv}" name="options" direction="in"/>
      <arg type="o" name="handle" direction="out"/>
    </method>
    <property name="version" type="u" access="read"/>
  </interface>
</node>
"""
REQUEST_XML = """
<node>
  <interface name="org.freedesktop.portal.Request">
    <method name="Close"/>
  </interface>
</node>
"""
SCREENSAVER_XML = """
<node>
  <interface name="org.freedesktop.ScreenSaver">
    <method name="Inhibit">
      <arg type="s" name="application_name" direction="in"/>
      <arg type="s" name="reason_for_inhibit" direction="in"/>
      <arg type="u" name="cookie" direction="out"/>
    </method>
    <method name="UnInhibit">
      <arg type="u" name="cookie" direction="in"/>
    </method>
  </interface>
</node>
"""


def say(line):
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--kind", choices=["portal", "screensaver"], required=True)
    args = parser.parse_args()
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    bus = Gio.DBusConnection.new_for_address_sync(args.address, flags, None, None)
    loop = GLib.MainLoop()
    held = {}  # handle or cookie -> registration id (0 for cookies)
    cookies = [0]

    def request_call(connection, sender, path, interface, method, parameters, invocation):
        if path not in held:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownObject", "no request " + path)
            return
        connection.unregister_object(held.pop(path))
        say("RELEASE " + path)
        invocation.return_value(None)

    request_info = Gio.DBusNodeInfo.new_for_xml(REQUEST_XML).interfaces[0]

    def portal_call(connection, sender, path, interface, method, parameters, invocation):
        window, inhibit_flags, options = parameters.unpack()
        token = options.get("handle_token", "t%d" % len(held))
        handle = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender[1:].replace(".", "_"), token)
        held[handle] = connection.register_object(handle, request_info, request_call, None, None)
        say("INHIBIT %d %s %s" % (inhibit_flags, handle, options.get("reason", "")))
        invocation.return_value(GLib.Variant("(o)", (handle,)))

    def portal_property(connection, sender, path, interface, name):
        return GLib.Variant("u", 3)

    def screensaver_call(connection, sender, path, interface, method, parameters, invocation):
        if method == "Inhibit":
            application, reason = parameters.unpack()
            cookies[0] += 1
            held[str(cookies[0])] = 0
            say("INHIBIT 0 %d %s" % (cookies[0], reason))
            invocation.return_value(GLib.Variant("(u)", (cookies[0],)))
        else:
            (cookie,) = parameters.unpack()
            if held.pop(str(cookie), None) is None:
                invocation.return_dbus_error("org.freedesktop.DBus.Error.InvalidArgs", "no cookie %d" % cookie)
                return
            say("RELEASE %d" % cookie)
            invocation.return_value(None)

    if args.kind == "portal":
        info = Gio.DBusNodeInfo.new_for_xml(PORTAL_XML).interfaces[0]
        bus.register_object("/org/freedesktop/portal/desktop", info, portal_call, portal_property, None)
        name = "org.freedesktop.portal.Desktop"
    else:
        info = Gio.DBusNodeInfo.new_for_xml(SCREENSAVER_XML).interfaces[0]
        bus.register_object("/org/freedesktop/ScreenSaver", info, screensaver_call, None, None)
        name = "org.freedesktop.ScreenSaver"

    Gio.bus_own_name_on_connection(
        bus, name, Gio.BusNameOwnerFlags.NONE, lambda *_: say("READY 1"), lambda *_: (say("LOST " + name), loop.quit()))
    bus.connect("closed", lambda *_: loop.quit())
    loop.run()


if __name__ == "__main__":
    sys.exit(main())
