import CGtk
import OtonSupport

/// One favourite: a "now playing" mark (shown on the current station, whose button is then described
/// "Playing now"), a flat button named after the station that plays it (`app.station(N)`, N from 1
/// as `oton ctl stations` numbers them) and an "Edit NAME" button whose popover makes it the
/// default, moves it up, removes it (`app.favourite-default|up|remove('NAME')`), renames it (an
/// entry "New name for NAME" and "Rename NAME") or gives it a new URL ("New URL for NAME" and
/// "Set URL of NAME"). Rows are made once and bound to whichever station scrolls into them;
/// a switch of station only marks them again (``mark(_:isCurrent:)``).
@MainActor
enum FavouriteRow {
    typealias Widget = Widgets.Widget

    private static let edits: [(action: String, title: String)] = [
        ("app.favourite-default", N_("Make default")), ("app.favourite-up", N_("Move up")), ("app.favourite-remove", N_("Remove")),
    ]

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
        return Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 0, [mark, play, edit])
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
        let named = [tr("Make {name} the default", values), tr("Move {name} up", values), tr("Remove {name}", values)]
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
