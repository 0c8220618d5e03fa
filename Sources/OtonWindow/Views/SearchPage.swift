import CGtk
import Foundation
import OtonSupport

/// Search the Radio Browser directory: an entry, what happened in words, the results (a button each
/// that plays it: `app.search-result(N)`) and "Add to favourites" for the result played last.
@MainActor
final class SearchPage {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let entry: Widget
    private let status: Widget
    private let add: Widget
    private let names: OpaquePointer
    private var shown: [String] = []

    init(search: @escaping @MainActor (String) -> Void, addToFavourites: @escaping @MainActor () -> Void) {
        entry = gtk_search_entry_new()!
        oton_gtk_accessible_label(entry, tr("Search stations"))
        gtk_widget_set_hexpand(entry, 1)
        add = gtk_button_new_with_label(tr("Add to favourites"))!
        gtk_widget_set_sensitive(add, 0)
        status = Widgets.label(description: tr("Search status"), cssClasses: ["dim-label"], wraps: true)
        names = gtk_string_list_new(nil)
        let selection = gtk_no_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(names))))
        let factory = gtk_signal_list_item_factory_new()!
        Signal.connectObject(cast(factory), "setup") { item in
            let button = gtk_button_new()!
            gtk_widget_add_css_class(button, "flat")
            gtk_list_item_set_child(cast(item), button)
        }
        Signal.connectObject(cast(factory), "bind") { item in
            let listItem: OpaquePointer = cast(item)
            let button = gtk_list_item_get_child(listItem)!
            let object = gtk_list_item_get_item(listItem)
            gtk_button_set_label(cast(button), object.map { String(cString: gtk_string_object_get_string(cast($0))) } ?? "")
            if let label = gtk_button_get_child(cast(button)) {
                gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_END)
                gtk_label_set_xalign(cast(label), 0)
            }
            gtk_actionable_set_action_target_value(cast(button), g_variant_new_int32(Int32(clamping: gtk_list_item_get_position(listItem) + 1)))
            gtk_actionable_set_action_name(cast(button), "app.search-result")
        }
        let list = gtk_list_view_new(selection, factory)!
        oton_gtk_accessible_label(list, tr("Search results"))
        let scrolled = Widgets.scrolledCard(list)
        let top = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, [entry, add])
        root = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [top, status, scrolled])
        Signal.connect(entry, "activate") { [unowned self] in search(currentText) }
        Signal.connect(entry, "search-changed") { [unowned self] in
            if currentText.count >= 2 { search(currentText) }
        }
        Signal.connect(add, "clicked") { addToFavourites() }
    }

    private var currentText: String {
        String(cString: gtk_editable_get_text(cast(entry))).trimmingCharacters(in: .whitespaces)
    }

    func focus() { gtk_widget_grab_focus(entry) }

    func say(_ text: String) { Widgets.setText(status, text, limit: 400) }

    /// Rows for `results` ("Name · DE · MP3 128 kbps · jazz").
    func show(_ results: [DirectorySearch.Result]) {
        let wanted = results.map { $0.detail.isEmpty ? $0.name : $0.name + " · " + $0.detail }
        guard wanted != shown else { return }
        let count = UInt32(shown.count)
        shown = wanted
        Widgets.splice(names, removing: count, inserting: wanted)
    }

    /// "Add to favourites" works once a result has been played.
    func allowAdding(_ allowed: Bool) { gtk_widget_set_sensitive(add, allowed ? 1 : 0) }
}
