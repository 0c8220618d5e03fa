import CGtk
import OtonSupport

/// The player's stations (plugins.json's favourites) in a GtkListView over a string model, so
/// 10,000 of them cost only the rows on screen. Each row is a ``FavouriteRow``; the station
/// playing is marked.
@MainActor
final class FavouritesList {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let names: OpaquePointer
    private var shown: [String] = []
    /// The station playing (its name, as the player's events say it), shared with the rows' bind handler.
    private final class Current { var name: String? }
    private let current = Current()

    init(rename: @escaping @MainActor (String, String) -> Void) {
        names = gtk_string_list_new(nil)
        let selection = gtk_no_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(names))))
        let factory = gtk_signal_list_item_factory_new()!
        Signal.connectObject(cast(factory), "setup") { item in
            gtk_list_item_set_child(cast(item), FavouriteRow.make(rename: rename))
        }
        Signal.connectObject(cast(factory), "bind") { [current] item in
            let listItem: OpaquePointer = cast(item)
            let object = gtk_list_item_get_item(listItem)
            let name = object.map { String(cString: gtk_string_object_get_string(cast($0))) } ?? ""
            FavouriteRow.bind(
                gtk_list_item_get_child(listItem)!, name: name, number: Int(gtk_list_item_get_position(listItem)) + 1,
                isCurrent: name == current.name)
        }
        let list = gtk_list_view_new(selection, factory)!
        oton_gtk_accessible_label(list, tr("Favourites"))
        root = Widgets.scrolledCard(list)
    }

    /// Replaces the rows with `stations` (in one splice: one model change however many).
    func show(_ stations: [StationRow]) {
        let wanted = stations.map(\.name)
        guard wanted != shown else { return }
        let count = UInt32(shown.count)
        shown = wanted
        Widgets.splice(names, removing: count, inserting: wanted)
    }

    /// Marks `station` as the one playing: the rows it leaves and enters are bound again.
    func markCurrent(_ station: String) {
        guard station != current.name else { return }
        let before = current.name
        current.name = station
        for name in [before, station].compactMap({ $0 }) {
            guard let index = shown.firstIndex(of: name) else { continue }
            Widgets.splice(names, at: UInt32(index), removing: 1, inserting: [name])
        }
    }
}
