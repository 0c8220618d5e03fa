import CGtk
import OtonSupport
import PluginAPI

/// The header bar's primary menu ("Main menu": Preferences, Keyboard Shortcuts, About Oton, Quit),
/// the shortcuts window it opens (Ctrl+?, a GtkShortcutsWindow listing every key the window answers)
/// and the About window (AdwAboutWindow).
@MainActor
enum MainMenu {
    typealias Widget = Widgets.Widget

    /// The menu button, its entries `app.` actions (WindowApplication+Menus).
    static func button() -> Widget {
        let menu = g_menu_new()!
        let main = g_menu_new()!
        for (label, action) in [
            (tr("Preferences"), "app.preferences"), (tr("Keyboard Shortcuts"), "app.shortcuts"), (tr("About Oton"), "app.about"),
        ] {
            g_menu_append(main, label, action)
        }
        let leaving = g_menu_new()!
        g_menu_append(leaving, tr("Quit"), "app.quit")
        g_menu_append_section(menu, nil, cast(main))
        g_menu_append_section(menu, nil, cast(leaving))
        g_object_unref(UnsafeMutableRawPointer(main))
        g_object_unref(UnsafeMutableRawPointer(leaving))
        let button = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(cast(button), "open-menu-symbolic")
        gtk_menu_button_set_menu_model(cast(button), cast(menu))
        gtk_menu_button_set_primary(cast(button), 1)  // F10 opens it
        g_object_unref(UnsafeMutableRawPointer(menu))
        gtk_widget_set_tooltip_text(button, tr("Main menu"))
        oton_gtk_accessible_label(button, tr("Main menu"))
        // GTK 4.8 reads the inner toggle button, not the GtkMenuButton, to a screen reader.
        if let inner = gtk_widget_get_first_child(button) { oton_gtk_accessible_label(inner, tr("Main menu")) }
        return button
    }

    /// Every key of the window, in groups; accelerators as GtkShortcutsShortcut writes them ("a...b": a range).
    static var keys: [(group: String, shortcuts: [(title: String, accelerator: String)])] {
        [
            (
                tr("Playback"),
                [(tr("Play or pause"), "space"), (tr("Play favourite 1 to 9"), "<Control>1...<Control>9")]
            ),
            (
                tr("Favourites"),
                [
                    (tr("Move the focused station up"), "<Alt>Up"), (tr("Move the focused station down"), "<Alt>Down"),
                    (tr("Move the focused station to the top"), "<Alt>Home"),
                ]
            ),
            (
                tr("Window"),
                [
                    (tr("Search the directory"), "<Control>f"), (tr("Preferences"), "<Control>comma"),
                    (tr("Keyboard Shortcuts"), "<Control>question"), (tr("Close the window"), "<Control>w"), (tr("Quit"), "<Control>q"),
                ]
            ),
        ]
    }

    /// The shortcuts window over `parent` (built each time it opens: it is small, and rarely opened).
    static func shortcuts(parent: Widget) -> Widget? {
        let escape = { (text: String) -> String in
            guard let escaped = g_markup_escape_text(text, -1) else { return "" }
            defer { g_free(escaped) }
            return String(cString: escaped)
        }
        let groups = keys.map { group in
            let rows = group.shortcuts.map {
                "<child><object class='GtkShortcutsShortcut'><property name='title'>\(escape($0.title))</property>"
                    + "<property name='accelerator'>\(escape($0.accelerator))</property></object></child>"
            }
            return "<child><object class='GtkShortcutsGroup'><property name='title'>\(escape(group.group))</property>"
                + rows.joined() + "</object></child>"
        }
        let ui =
            "<interface><object class='GtkShortcutsWindow' id='shortcuts'><property name='modal'>1</property>"
            + "<child><object class='GtkShortcutsSection'><property name='section-name'>window</property><property name='max-height'>12</property>"
            + groups.joined() + "</object></child></object></interface>"
        let builder = gtk_builder_new_from_string(ui, -1)!
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        guard let object = gtk_builder_get_object(builder, "shortcuts") else { return nil }
        let window: Widget = cast(object)  // GTK owns a toplevel: it outlives the builder, and is destroyed when closed
        gtk_window_set_transient_for(cast(window), cast(parent))
        gtk_window_set_title(cast(window), tr("Keyboard Shortcuts"))
        return window
    }

    /// "About Oton": name, version, what it is, its authors and licence.
    static func about(parent: Widget) -> Widget {
        let about = adw_about_window_new()!
        gtk_window_set_transient_for(cast(about), cast(parent))
        gtk_window_set_modal(cast(about), 1)
        gtk_window_set_title(cast(about), tr("About Oton"))
        adw_about_window_set_application_name(cast(about), "Oton")
        adw_about_window_set_application_icon(cast(about), OTON_DESKTOP_APP_ID)
        adw_about_window_set_version(cast(about), OtonVersion.current)
        adw_about_window_set_developer_name(cast(about), tr("The Oton authors"))
        adw_about_window_set_comments(cast(about), tr("An internet radio player and recorder"))
        adw_about_window_set_license_type(cast(about), GTK_LICENSE_MIT_X11)
        return about
    }
}
