#!/usr/bin/env python3
"""Drives `oton window` as a screen reader does: through the AT-SPI bus (pyatspi), by accessible
names, roles and descriptions only. Run by Tests/OtonIntegrationTests/WindowTests.swift, one
short command per run; it prints one JSON line and exits 0, or prints why and exits 1.

    atspi_driver.py text DESCRIPTION     the text of the label described as DESCRIPTION ("Title")
    atspi_driver.py wait-text DESCRIPTION TEXT SECONDS   polls (every 50 ms, in this process) until that label's
                                          text is TEXT; prints the seconds it took, or exits 1 with the last text seen
    atspi_driver.py press-each NAME DESCRIPTION SECONDS TEXT...   for each TEXT: presses the button named NAME, then
                                          polls (every 20 ms) until the label described DESCRIPTION reads TEXT, up to
                                          SECONDS each; prints the seconds each took, or exits 1 with where it stopped
    atspi_driver.py type NAME TEXT        puts TEXT in the entry named NAME (AT-SPI EditableText)
    atspi_driver.py describe NAME [ROLE]  the role and description of the node named NAME ("Artwork"), of that role
    atspi_driver.py names ROLE            the names of every node of ROLE ("push button", "list item" ...)
    atspi_driver.py press NAME            does the first action ("click") of the button (or menu item) named NAME
    atspi_driver.py value NAME [NUMBER]   reads (or sets) the value of the control named NAME ("Volume")
    atspi_driver.py keys KEYSYM...        types keys as the keyboard does (XTest through the AT-SPI registry):
                                          "Control_L+1" holds Control_L while typing 1 ("Alt_L+Up", "Control_L+Shift_L+slash")
    atspi_driver.py states NAME [ROLE]    the AT-SPI states of the node named NAME ("checked", "focused", "showing" ...);
                                          {"states": null} when no such node exists (a hidden widget has none)
    atspi_driver.py entry-text NAME       the text in the entry named NAME
    atspi_driver.py clipboard             the text on the display's clipboard (read as any application does, through GTK)
    atspi_driver.py dump                  the whole tree of the window's application, for a failure message
"""
import json
import sys

import pyatspi

APPLICATION = "oton-window"
# Xvfb's default keymap (evdev keycodes, us layout): the keys the window's shortcuts use.
KEYCODES = {
    "Control_L": 37, "Shift_L": 50, "Alt_L": 64, "Return": 36, "Escape": 9, "space": 65, "q": 24, "w": 25, "f": 41, "comma": 59,
    "slash": 61, "1": 10, "2": 11, "3": 12, "a": 38, "b": 56, "Up": 111, "Down": 116, "Home": 110, "Tab": 23, "Menu": 135, "F10": 76,
}


def application():
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None and app.name == APPLICATION:
            return app
    sys.exit(json.dumps({"error": "no application %r on the AT-SPI bus" % APPLICATION}))


def walk(node, depth=0):
    yield node, depth
    for index in range(node.childCount):
        child = node.getChildAtIndex(index)
        if child is not None:
            yield from walk(child, depth + 1)


def whole_text(text):
    """A text's characters, read again when it changed while being read: its length and its characters
    are two calls, and a label that changed between them gave the new text cut at the old length."""
    for _ in range(10):
        count = text.characterCount
        value = text.getText(0, count)
        if text.characterCount == count and len(value) == count:
            break
    return value


def text_of(node):
    try:
        return whole_text(node.queryText())
    except NotImplementedError:
        return node.name


def find(predicate):
    for node, _ in walk(application()):
        if predicate(node):
            return node
    return None


def main(words):
    command = words[0]
    if command == "text":
        node = find(lambda n: n.getRoleName() == "label" and n.description == words[1])
        if node is None:
            sys.exit(json.dumps({"error": "no label described %r" % words[1]}))
        print(json.dumps({"text": text_of(node), "name": node.name}))
    elif command == "wait-text":
        import time
        started = time.monotonic()
        last = None
        node = None
        while time.monotonic() - started < float(words[3]):
            if node is None:  # found once, then only its text is read (a walk of the tree takes a while)
                node = find(lambda n: n.getRoleName() == "label" and n.description == words[1])
            try:
                last = text_of(node) if node is not None else last
            except Exception:
                node = None
            if last == words[2]:
                print(json.dumps({"seconds": time.monotonic() - started, "at": time.time(), "text": last}))
                return
            time.sleep(0.05)
        sys.exit(json.dumps({"error": "timed out", "last": last}))
    elif command == "press-each":
        import time
        button = find(lambda n: n.getRoleName() in ("push button", "button") and n.name == words[1])
        label = find(lambda n: n.getRoleName() == "label" and n.description == words[2])
        if button is None or label is None:
            sys.exit(json.dumps({"error": "no button named %r or no label described %r" % (words[1], words[2])}))
        took = []
        for text in words[4:]:
            started = time.monotonic()
            button.queryAction().doAction(0)
            last = None
            while last != text:
                if time.monotonic() - started > float(words[3]):
                    sys.exit(json.dumps({"error": "timed out", "done": len(took), "wanted": text, "last": last}))
                time.sleep(0.02)
                last = text_of(label)
            took.append(round(time.monotonic() - started, 3))
        print(json.dumps({"seconds": took}))
    elif command == "type":
        node = find(lambda n: n.name == words[1] and n.getRoleName() in ("entry", "text", "password text"))
        if node is None:
            sys.exit(json.dumps({"error": "no entry named %r" % words[1]}))
        done = node.queryEditableText().setTextContents(words[2])
        print(json.dumps({"typed": words[2], "done": bool(done)}))
    elif command == "type-keys":
        # As a person types: the text one character longer every INTERVAL seconds, from its first
        # SKIP characters (already typed) on; "at" is the wall clock of the last key, "longest_gap" the
        # longest time between two keys (a busy machine stretches INTERVAL).
        import time
        node = find(lambda n: n.name == words[1] and n.getRoleName() in ("entry", "text", "password text"))
        if node is None:
            sys.exit(json.dumps({"error": "no entry named %r" % words[1]}))
        editable = node.queryEditableText()
        skip = int(words[4]) if len(words) > 4 else 0
        keys = []
        for length in range(skip + 1, len(words[2]) + 1):
            keys.append(time.monotonic())
            editable.setTextContents(words[2][:length])
            if length < len(words[2]):
                time.sleep(float(words[3]))
        gap = max([later - earlier for earlier, later in zip(keys, keys[1:])], default=0)
        print(json.dumps({"typed": words[2], "at": time.time(), "longest_gap": gap}))
    elif command == "describe":
        node = find(lambda n: n.name == words[1] and (len(words) < 3 or n.getRoleName() == words[2]))
        if node is None:
            sys.exit(json.dumps({"error": "nothing named %r" % words[1]}))
        print(json.dumps({"description": node.description, "role": node.getRoleName()}))
    elif command == "states":
        node = find(lambda n: n.name == words[1] and (len(words) < 3 or n.getRoleName() == words[2]))
        if node is None:
            print(json.dumps({"states": None}))
            return
        states = node.getState().getStates()
        print(json.dumps({"states": [pyatspi.stateToString(state) for state in states], "role": node.getRoleName()}))
    elif command == "entry-text":
        node = find(lambda n: n.name == words[1] and n.getRoleName() in ("entry", "text", "password text"))
        if node is None:
            sys.exit(json.dumps({"error": "no entry named %r" % words[1]}))
        text = None
        for inner, _ in walk(node):  # a search entry's text is its inner GtkText's
            try:
                text = whole_text(inner.queryText())
                break
            except NotImplementedError:
                continue
        print(json.dumps({"text": text}))
    elif command == "names":
        print(json.dumps({"names": [n.name for n, _ in walk(application()) if n.getRoleName() == words[1]]}))
    elif command == "press":
        node = find(lambda n: n.getRoleName() in ("push button", "button", "toggle button", "radio button", "page tab", "switch", "check box", "menu item") and n.name == words[1])
        if node is None:
            sys.exit(json.dumps({"error": "no button named %r" % words[1]}))
        action = node.queryAction()
        if action.nActions < 1:
            sys.exit(json.dumps({"error": "button %r has no action" % words[1]}))
        print(json.dumps({"pressed": words[1], "action": action.getName(0), "done": bool(action.doAction(0))}))
    elif command == "value":
        node = find(lambda n: n.name == words[1] and n.getRoleName() in ("slider", "spin button", "scroll bar"))
        if node is None:
            sys.exit(json.dumps({"error": "no control named %r" % words[1]}))
        value = node.queryValue()
        if len(words) > 2:
            value.currentValue = float(words[2])
        print(json.dumps({"value": value.currentValue, "minimum": value.minimumValue, "maximum": value.maximumValue}))
    elif command == "keys":
        application()  # the window is there to type into
        for chord in words[1:]:
            parts = chord.split("+")
            for name in parts[:-1]:
                pyatspi.Registry.generateKeyboardEvent(KEYCODES[name], None, pyatspi.KEY_PRESS)
            pyatspi.Registry.generateKeyboardEvent(KEYCODES[parts[-1]], None, pyatspi.KEY_PRESSRELEASE)
            for name in reversed(parts[:-1]):
                pyatspi.Registry.generateKeyboardEvent(KEYCODES[name], None, pyatspi.KEY_RELEASE)
        print(json.dumps({"typed": words[1:]}))
    elif command == "clipboard":
        import gi
        gi.require_version("Gtk", "4.0")
        from gi.repository import Gdk, GLib, Gtk
        Gtk.init()
        loop = GLib.MainLoop()
        result = {}

        def done(clipboard, outcome):
            try:
                result["text"] = clipboard.read_text_finish(outcome)
            except GLib.Error as error:
                result["error"] = error.message
            loop.quit()

        Gdk.Display.get_default().get_clipboard().read_text_async(None, done)
        GLib.timeout_add_seconds(30, loop.quit)
        loop.run()
        if "text" not in result:
            sys.exit(json.dumps({"error": result.get("error", "the clipboard did not answer")}))
        print(json.dumps({"text": result["text"]}))
    elif command == "dump":
        lines = []
        for node, depth in walk(application()):
            lines.append("%s%s %r %r" % ("  " * depth, node.getRoleName(), node.name, node.description))
        print(json.dumps({"tree": lines}))
    else:
        sys.exit(json.dumps({"error": "unknown command %r" % command}))


if __name__ == "__main__":
    main(sys.argv[1:])
