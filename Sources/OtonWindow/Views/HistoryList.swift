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
        root = Widgets.scrolledCard(list)
    }

    /// Shows `history` (newest first); only the new lines at the top are added.
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
