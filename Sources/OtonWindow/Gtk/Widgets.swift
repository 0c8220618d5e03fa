import CGtk

/// Small constructors for the widgets the window is made of, each with its accessible name.
/// Text always goes in as plain text (gtk_label_set_text, gtk_button_set_label): never markup.
@MainActor
enum Widgets {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// A label for untrusted text: plain, on one line, ellipsized at the end.
    static func label(description: String, cssClasses: [String] = [], wraps: Bool = false) -> Widget {
        let label = gtk_label_new(nil)!
        let typed: OpaquePointer = cast(label)
        gtk_label_set_use_markup(typed, 0)
        gtk_label_set_xalign(typed, 0)
        gtk_label_set_selectable(typed, 0)
        if wraps {
            gtk_label_set_wrap(typed, 1)
            gtk_label_set_wrap_mode(typed, PANGO_WRAP_WORD_CHAR)
        } else {
            gtk_label_set_single_line_mode(typed, 1)
            gtk_label_set_ellipsize(typed, PANGO_ELLIPSIZE_END)
        }
        for name in cssClasses { gtk_widget_add_css_class(label, name) }
        oton_gtk_accessible_description(label, description)
        return label
    }

    /// Sets a label's text as text (Pango markup in it stays visible characters), cut to `limit`
    /// characters first so a 100 KB title costs no layout time; the label ellipsizes the rest.
    static func setText(_ label: Widget, _ text: String, limit: Int = 1000) {
        let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
        gtk_label_set_text(cast(label), shown)
    }

    /// A button showing only an icon, with the name a screen reader says.
    static func iconButton(icon: String, name: String, circular: Bool = true) -> Widget {
        let button = gtk_button_new_from_icon_name(icon)!
        if circular { gtk_widget_add_css_class(button, "circular") }
        gtk_widget_set_tooltip_text(button, name)
        oton_gtk_accessible_label(button, name)
        gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
        return button
    }

    /// A popover that opens from `button`. GTK leaves a child parented by hand (gtk_widget_set_parent)
    /// to whoever parented it: it is unparented when the button is disposed, else GTK warns "still has
    /// children left" and both stay in memory.
    static func popover(on button: Widget) -> Widget {
        let popover = gtk_popover_new()!
        gtk_widget_set_parent(popover, button)
        var attached: Widget? = popover
        Signal.connect(button, "destroy") {
            if let child = attached { gtk_widget_unparent(child) }
            attached = nil
        }
        return popover
    }

    static func box(_ orientation: GtkOrientation, spacing: Int32, _ children: [Widget]) -> Widget {
        let box = gtk_box_new(orientation, spacing)!
        for child in children { gtk_box_append(cast(box), child) }
        return box
    }

    /// A list in a card that scrolls vertically and takes the height left.
    static func scrolledCard(_ list: Widget) -> Widget {
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_child(cast(scrolled), list)
        gtk_scrolled_window_set_policy(cast(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_widget_set_vexpand(scrolled, 1)
        gtk_widget_add_css_class(scrolled, "card")
        return scrolled
    }

    /// Replaces `count` rows of a GtkStringList from `position` (the top) with `rows`, in one splice (one model change).
    static func splice(_ strings: OpaquePointer, at position: UInt32 = 0, removing count: UInt32, inserting rows: [String]) {
        var copies = rows.map { strdup($0) }
        copies.append(nil)
        copies.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { pointer in
                gtk_string_list_splice(strings, position, count, pointer)
            }
        }
        for copy in copies { free(copy) }
    }

    static func margins(_ widget: Widget, _ size: Int32) {
        gtk_widget_set_margin_top(widget, size)
        gtk_widget_set_margin_bottom(widget, size)
        gtk_widget_set_margin_start(widget, size)
        gtk_widget_set_margin_end(widget, size)
    }
}
