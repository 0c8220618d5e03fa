import CGtk
import OtonSupport

/// One favourite: a "now playing" mark (shown on the current station, whose button is then described
/// "Playing now"), a flat button named after the station that plays it (`app.station(N)`, N from 1
/// as `oton ctl stations` numbers them) and an "Edit NAME" button whose popover makes it the
/// default, moves it to the top, up or down, removes it (`app.favourite-default|top|up|down|remove('NAME')`), renames it (an
/// entry "New name for NAME" and "Rename NAME") or gives it a new URL ("New URL for NAME" and
/// "Set URL of NAME"). Rows are made once and bound to whichever station scrolls into them;
/// a switch of station only marks them again (``mark(_:isCurrent:)``). A row is one Tab stop (its
/// station's button); with the focus there, the Menu key or Shift+F10 opens the popover, Alt+↑ and
/// Alt+↓ move its station one place, Alt+Home to the top (the same actions).
@MainActor
enum FavouriteRow {
    typealias Widget = Widgets.Widget

    private static let edits: [(action: String, title: String)] = [
        ("app.favourite-default", N_("Make default")), ("app.favourite-top", N_("Move to the top")), ("app.favourite-up", N_("Move up")),
        ("app.favourite-down", N_("Move down")), ("app.favourite-remove", N_("Remove")),
    ]

    /// Alt+↑, Alt+↓ (the keypad's too) and Alt+Home, and the action each runs on the row's station.
    private static let moveKeys: [UInt32: String] = [
        0xff52: "app.favourite-up", 0xff97: "app.favourite-up", 0xff54: "app.favourite-down", 0xff99: "app.favourite-down",
        0xff50: "app.favourite-top", 0xff95: "app.favourite-top",
    ]

    /// Alt+↑/↓/Home in `row` (bubbling up from its focused button): its station moved by the same action as the
    /// popover's. The Menu key or Shift+F10 opens the row's popover (its "Edit" button is no Tab stop).
    private static func keys(_ row: Widget, play: Widget, popover: Widget) {
        let keys = gtk_event_controller_key_new()!
        Signal.connectKey(UnsafeMutableRawPointer(keys)) { key, state in
            let modifiers = state & (GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue | GDK_SHIFT_MASK.rawValue | GDK_SUPER_MASK.rawValue)
            if (key == 0xff67 && modifiers == 0) || (key == 0xffc7 && modifiers == GDK_SHIFT_MASK.rawValue) {  // Menu, Shift+F10
                gtk_popover_popup(cast(popover))
                return true
            }
            guard modifiers == GDK_ALT_MASK.rawValue, let action = moveKeys[key], let label = gtk_button_get_label(cast(play)) else { return false }
            gtk_widget_activate_action_variant(row, action, g_variant_new_string(label))
            return true
        }
        gtk_widget_add_controller(row, keys)
    }

    /// `rename` and `setURL` get the station's name and the new name or URL typed.
    static func make(rename: @escaping @MainActor (String, String) -> Void, setURL: @escaping @MainActor (String, String) -> Void) -> Widget {
        let mark = gtk_image_new_from_icon_name("media-playback-start-symbolic")!
        gtk_widget_set_margin_start(mark, 8)
        gtk_widget_set_visible(mark, 0)
        let play = gtk_button_new()!
        gtk_widget_add_css_class(play, "flat")
        gtk_widget_set_hexpand(play, 1)
        let edit = gtk_button_new_from_icon_name("view-more-symbolic")!
        gtk_widget_add_css_class(edit, "flat")
        // One Tab stop per row, its station's button: the popover opens by mouse, or by the Menu key (Shift+F10) from the row.
        gtk_widget_set_focusable(edit, 0)
        let popover = Widgets.popover(on: edit)
        var buttons = edits.map { entry -> Widget in
            let button = gtk_button_new_with_label(tr(entry.title))!
            gtk_widget_add_css_class(button, "flat")
            Signal.connect(button, "clicked") { gtk_popover_popdown(cast(popover)) }
            return button
        }
        // An entry and its button, which keeps the station's name as its target (no action).
        for (title, change) in [(tr("Rename"), rename), (tr("Set URL"), setURL)] {
            let typed = gtk_entry_new()!
            let apply = gtk_button_new_with_label(title)!
            let changing = { @MainActor in
                guard let target = gtk_actionable_get_action_target_value(cast(apply)) else { return }
                let name = String(cString: g_variant_get_string(target, nil))
                let text = String(cString: gtk_editable_get_text(cast(typed))).trimmingCharacters(in: .whitespaces)
                gtk_popover_popdown(cast(popover))
                if !text.isEmpty { change(name, text) }
            }
            Signal.connect(apply, "clicked") { changing() }
            Signal.connect(typed, "activate") { changing() }
            buttons.append(Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, [typed, apply]))
        }
        gtk_popover_set_child(cast(popover), Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 2, buttons))
        Signal.connect(edit, "clicked") { gtk_popover_popup(cast(popover)) }
        let row = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 0, [mark, play, edit])
        keys(row, play: play, popover: popover)
        return row
    }

    /// Gives the focus to the row's station button (after a move by keys, the row now showing that station).
    static func focus(_ row: Widget) {
        guard let mark = gtk_widget_get_first_child(row), let play = gtk_widget_get_next_sibling(mark) else { return }
        gtk_widget_grab_focus(play)
    }

    /// Shows or hides the "now playing" mark, and describes the station's button as playing or not.
    static func mark(_ row: Widget, isCurrent: Bool) {
        guard let mark = gtk_widget_get_first_child(row), let play = gtk_widget_get_next_sibling(mark) else { return }
        gtk_widget_set_visible(mark, isCurrent ? 1 : 0)
        oton_gtk_accessible_description(play, isCurrent ? tr("Playing now") : "")
    }

    /// The URL entry's text (a URL changed, the name not: the row is not bound again).
    static func showURL(_ row: Widget, _ url: String) {
        guard let edit = gtk_widget_get_last_child(row), let popover = gtk_widget_get_last_child(edit),
            let box = gtk_popover_get_child(cast(popover)), let urlRow = gtk_widget_get_last_child(box), let entry = gtk_widget_get_first_child(urlRow)
        else { return }
        gtk_editable_set_text(cast(entry), url)
    }

    static func bind(_ row: Widget, name: String, url: String, number: Int, isCurrent: Bool) {
        guard let mark = gtk_widget_get_first_child(row), let play = gtk_widget_get_next_sibling(mark), let edit = gtk_widget_get_last_child(row),
            let popover = gtk_widget_get_last_child(edit), let box = gtk_popover_get_child(cast(popover))
        else { return }
        Self.mark(row, isCurrent: isCurrent)
        gtk_button_set_label(cast(play), name)
        if let label = gtk_button_get_child(cast(play)) {
            gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_END)
            gtk_label_set_xalign(cast(label), 0)
        }
        // The target first: a name without its target is a mismatch GTK warns about.
        gtk_actionable_set_action_target_value(cast(play), g_variant_new_int32(Int32(clamping: number)))
        gtk_actionable_set_action_name(cast(play), "app.station")
        let values = ["name": name]
        let named = [
            tr("Make {name} the default", values), tr("Move {name} to the top", values), tr("Move {name} up", values), tr("Move {name} down", values),
            tr("Remove {name}", values),
        ]
        oton_gtk_accessible_label(edit, tr("Edit {name}", values))
        gtk_widget_set_tooltip_text(edit, tr("Edit {name}", values))
        var button = gtk_widget_get_first_child(box)
        for (index, entry) in edits.enumerated() {
            guard let current = button else { break }
            oton_gtk_accessible_label(current, named[index])
            gtk_actionable_set_action_target_value(cast(current), g_variant_new_string(name))
            gtk_actionable_set_action_name(cast(current), entry.action)
            button = gtk_widget_get_next_sibling(current)
        }
        // The rename and URL rows: their entries start with the name and the URL.
        let rows = [
            (name, tr("New name for {name}", values), tr("Rename {name}", values)), (url, tr("New URL for {name}", values), tr("Set URL of {name}", values)),
        ]
        for (text, entryName, buttonName) in rows {
            guard let row = button, let entry = gtk_widget_get_first_child(row), let apply = gtk_widget_get_last_child(row) else { return }
            gtk_editable_set_text(cast(entry), text)
            oton_gtk_accessible_label(entry, entryName)
            oton_gtk_accessible_label(apply, buttonName)
            gtk_actionable_set_action_target_value(cast(apply), g_variant_new_string(name))
            button = gtk_widget_get_next_sibling(row)
        }
    }
}
