import CGtk
import Foundation
import OtonSupport

/// Search the Radio Browser directory: an entry that searches 300 ms after the last key (Enter at
/// once), what happened in words, and the results, each a row with a button that plays it
/// (`app.search-result(N)`) and "Add NAME to favourites" (`app.search-add(N)`). No stations, or a
/// directory that fails, show a status page in their place.
@MainActor
final class SearchPage {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let entry: Widget
    private let status: Widget
    private let names: OpaquePointer
    private let pages: Widget
    private let trouble: Widget
    private var shown: [String] = []
    /// The station names of the rows, by position, shared with the factory's handlers.
    private final class Rows {
        var names: [String] = []
    }
    private let rows = Rows()
    /// The query searched last, and whether its answer is still awaited: neither the pause after
    /// Enter nor Enter while it runs searches it again (Enter after its answer does: a retry).
    private var searched: String?
    private var waiting = false

    init(search: @escaping @MainActor (String) -> Void) {
        entry = gtk_search_entry_new()!
        oton_gtk_accessible_label(entry, tr("Search stations"))
        gtk_widget_set_hexpand(entry, 1)
        // One search per pause in typing, not one per key.
        gtk_search_entry_set_search_delay(cast(entry), 300)
        status = Widgets.label(description: tr("Search status"), cssClasses: ["dim-label"], wraps: true)
        names = gtk_string_list_new(nil)
        let selection = gtk_no_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(names))))
        let factory = gtk_signal_list_item_factory_new()!
        Signal.connectObject(cast(factory), "setup") { item in
            let play = gtk_button_new()!
            gtk_widget_add_css_class(play, "flat")
            gtk_widget_set_hexpand(play, 1)
            let add = Widgets.iconButton(icon: "list-add-symbolic", name: tr("Add to favourites"), circular: false)
            gtk_widget_add_css_class(add, "flat")
            gtk_list_item_set_child(cast(item), Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 0, [play, add]))
        }
        Signal.connectObject(cast(factory), "bind") { [rows] item in
            let listItem: OpaquePointer = cast(item)
            guard let row = gtk_list_item_get_child(listItem), let play = gtk_widget_get_first_child(row), let add = gtk_widget_get_last_child(row)
            else { return }
            let object = gtk_list_item_get_item(listItem)
            gtk_button_set_label(cast(play), object.map { String(cString: gtk_string_object_get_string(cast($0))) } ?? "")
            if let label = gtk_button_get_child(cast(play)) {
                gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_END)
                gtk_label_set_xalign(cast(label), 0)
            }
            let position = Int(gtk_list_item_get_position(listItem))
            let name = position < rows.names.count ? rows.names[position] : ""
            let named = tr("Add {name} to favourites", ["name": name])
            oton_gtk_accessible_label(add, named)
            gtk_widget_set_tooltip_text(add, named)
            for (button, action) in [(play, "app.search-result"), (add, "app.search-add")] {
                gtk_actionable_set_action_target_value(cast(button), g_variant_new_int32(Int32(clamping: position + 1)))
                gtk_actionable_set_action_name(cast(button), action)
            }
        }
        let list = gtk_list_view_new(selection, factory)!
        oton_gtk_accessible_label(list, tr("Search results"))
        trouble = adw_status_page_new()!
        adw_status_page_set_icon_name(cast(trouble), "system-search-symbolic")
        pages = gtk_stack_new()!
        gtk_stack_add_named(cast(pages), Widgets.scrolledCard(list), "results")
        gtk_stack_add_named(cast(pages), trouble, "trouble")
        gtk_widget_set_vexpand(pages, 1)
        root = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [entry, status, pages])
        Signal.connect(entry, "activate") { [unowned self] in
            let text = currentText
            guard !text.isEmpty, !(waiting && text == searched) else { return }
            (searched, waiting) = (text, true)
            search(text)
        }
        Signal.connect(entry, "search-changed") { [unowned self] in
            let text = currentText
            guard text.count >= 2, text != searched else { return }
            (searched, waiting) = (text, true)
            search(text)
        }
    }

    private var currentText: String {
        String(cString: gtk_editable_get_text(cast(entry))).trimmingCharacters(in: .whitespaces)
    }

    func focus() { gtk_widget_grab_focus(entry) }

    func say(_ text: String) { Widgets.setText(status, text, limit: 400) }

    /// Rows for `results` ("Name · DE · MP3 128 kbps · jazz"), in place of a status page.
    func show(_ results: [DirectorySearch.Result]) {
        waiting = false
        gtk_stack_set_visible_child_name(cast(pages), "results")
        let wanted = results.map { $0.detail.isEmpty ? $0.name : $0.name + " · " + $0.detail }
        guard wanted != shown else { return }
        let count = UInt32(shown.count)
        shown = wanted
        rows.names = results.map(\.name)
        Widgets.splice(names, removing: count, inserting: wanted)
    }

    /// A status page in place of the results: nothing found, or a directory that failed.
    func show(_ problem: SearchTrouble) {
        show([])
        adw_status_page_set_title(cast(trouble), problem.title)
        // The description is Pango markup: escaped, a query stays text.
        let escaped = g_markup_escape_text(problem.advice, -1)!
        adw_status_page_set_description(cast(trouble), escaped)
        g_free(escaped)
        gtk_stack_set_visible_child_name(cast(pages), "trouble")
    }
}
