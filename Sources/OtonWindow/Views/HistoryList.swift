import CGtk
import OtonSupport

/// The tracks heard since the window opened, newest first, one plain-text label per row in a
/// GtkListView over a string model.
@MainActor
final class HistoryList {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let lines: OpaquePointer
    private var shown: [String] = []

    init() {
        lines = gtk_string_list_new(nil)
        let selection = gtk_no_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(lines))))
        let list = gtk_list_view_new(selection, oton_gtk_string_row_factory())!
        oton_gtk_accessible_label(list, tr("Recently played"))
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_child(cast(scrolled), list)
        gtk_scrolled_window_set_policy(cast(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_widget_set_vexpand(scrolled, 1)
        gtk_widget_add_css_class(scrolled, "card")
        root = scrolled
    }

    /// Shows `history` (newest first); only the new lines at the top are added.
    func show(_ history: [String]) {
        guard history != shown else { return }
        let added = history.count - shown.count
        if added > 0, Array(history.dropFirst(added)) == shown {
            insert(Array(history.prefix(added)), removing: 0)
        } else {
            insert(history, removing: UInt32(shown.count))
        }
        shown = history
    }

    private func insert(_ new: [String], removing count: UInt32) {
        var copies = new.map { strdup($0) }
        copies.append(nil)
        copies.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { pointer in
                gtk_string_list_splice(lines, 0, count, pointer)
            }
        }
        for copy in copies { free(copy) }
    }
}
