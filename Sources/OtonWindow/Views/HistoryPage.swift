import CGtk
import OtonSupport

/// The tracks heard: today's, or those a search finds over the whole history (the history plugin's
/// `history`), newest first. Each row is its line as plain text and a "Copy LINE" button
/// (`app.copy-line('LINE')`); a GtkListView over a string model, so a long history costs only the rows shown.
@MainActor
final class HistoryPage {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let entry: Widget
    private let status: Widget
    private let lines: OpaquePointer
    private var shown: [String] = []

    /// `search` gets the entry's text each time it changes (empty: today's tracks).
    init(search: @escaping @MainActor (String) -> Void) {
        entry = gtk_search_entry_new()!
        oton_gtk_accessible_label(entry, tr("Search history"))
        gtk_widget_set_hexpand(entry, 1)
        status = Widgets.label(description: tr("History status"), cssClasses: ["dim-label"], wraps: true)
        lines = gtk_string_list_new(nil)
        let selection = gtk_no_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(lines))))
        let factory = gtk_signal_list_item_factory_new()!
        Signal.connectObject(cast(factory), "setup") { item in
            let label = Widgets.label(description: tr("History line"))
            gtk_widget_set_hexpand(label, 1)
            let copy = Widgets.iconButton(icon: "edit-copy-symbolic", name: tr("Copy"), circular: false)
            gtk_widget_add_css_class(copy, "flat")
            let row = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, [label, copy])
            Widgets.margins(row, 4)
            gtk_widget_set_margin_start(row, 12)
            gtk_list_item_set_child(cast(item), row)
        }
        Signal.connectObject(cast(factory), "bind") { item in
            let listItem: OpaquePointer = cast(item)
            guard let row = gtk_list_item_get_child(listItem), let label = gtk_widget_get_first_child(row),
                let copy = gtk_widget_get_last_child(row)
            else { return }
            let line = gtk_list_item_get_item(listItem).map { String(cString: gtk_string_object_get_string(cast($0))) } ?? ""
            Widgets.setText(label, line)
            oton_gtk_accessible_label(copy, tr("Copy {line}", ["line": line]))
            gtk_actionable_set_action_target_value(cast(copy), g_variant_new_string(line))
            gtk_actionable_set_action_name(cast(copy), "app.copy-line")
        }
        let list = gtk_list_view_new(selection, factory)!
        oton_gtk_accessible_label(list, tr("History"))
        root = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [entry, status, Widgets.scrolledCard(list)])
        Signal.connect(entry, "search-changed") { [unowned self] in search(query) }
        Signal.connect(entry, "activate") { [unowned self] in search(query) }
    }

    /// What the entry holds, trimmed (empty: today's tracks).
    var query: String {
        String(cString: gtk_editable_get_text(cast(entry))).trimmingCharacters(in: .whitespaces)
    }

    func say(_ text: String) { Widgets.setText(status, text, limit: 400) }

    /// Shows `history` (newest first); when only new lines came on top, only those are added.
    func show(_ history: [String]) {
        guard history != shown else { return }
        let added = history.count - shown.count
        if added > 0, Array(history.dropFirst(added)) == shown {
            Widgets.splice(lines, removing: 0, inserting: Array(history.prefix(added)))
        } else {
            Widgets.splice(lines, removing: UInt32(shown.count), inserting: history)
        }
        shown = history
    }
}
