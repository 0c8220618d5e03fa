import CGtk
import OtonSupport

/// The player's stations (plugins.json's favourites) in a GtkListView over a string model, so
/// 10,000 of them cost only the rows on screen. Each row is a ``FavouriteRow``; the station
/// playing is marked. Above them, "Add a station" (an ``AddStationPopover``).
@MainActor
final class FavouritesList {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let names: OpaquePointer
    private var shown: [String] = []
    /// The station playing (its name, as the player's events say it) and the rows bound now (those
    /// near the screen) with their station's name, shared with the factory's handlers.
    private final class Marks {
        var current: String?
        var bound: [Widget: String] = [:]
        var urls: [String: String] = [:]
        /// A station moved by keys: its row takes the focus when the new order is shown.
        var follow: String?
    }
    private let marks = Marks()
    let adding: AddStationPopover

    init(
        rename: @escaping @MainActor (String, String) -> Void, setURL: @escaping @MainActor (String, String) -> Void,
        add: @escaping @MainActor (String, String) -> Void
    ) {
        names = gtk_string_list_new(nil)
        let selection = gtk_no_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(names))))
        let factory = gtk_signal_list_item_factory_new()!
        Signal.connectObject(cast(factory), "setup") { [marks] item in
            let row = FavouriteRow.make(rename: rename, setURL: setURL)
            // A row GTK disposes is forgotten at once, whether or not it was unbound first.
            Signal.connect(row, "destroy") { marks.bound[row] = nil }
            gtk_list_item_set_child(cast(item), row)
        }
        Signal.connectObject(cast(factory), "bind") { [marks] item in
            let listItem: OpaquePointer = cast(item)
            let object = gtk_list_item_get_item(listItem)
            let name = object.map { String(cString: gtk_string_object_get_string(cast($0))) } ?? ""
            guard let row = gtk_list_item_get_child(listItem) else { return }
            // The row's holder (GTK's list item widget) is no Tab stop of its own: an unnamed one, before the station's button.
            if let holder = gtk_widget_get_parent(row) { gtk_widget_set_focusable(holder, 0) }
            marks.bound[row] = name
            FavouriteRow.bind(
                row, name: name, url: marks.urls[name] ?? "", number: Int(gtk_list_item_get_position(listItem)) + 1, isCurrent: name == marks.current)
        }
        Signal.connectObject(cast(factory), "unbind") { [marks] item in
            if let row = gtk_list_item_get_child(cast(item)) { marks.bound[row] = nil }
        }
        let list = gtk_list_view_new(selection, factory)!
        oton_gtk_accessible_label(list, tr("Favourites"))
        adding = AddStationPopover(add: add)
        gtk_widget_set_halign(adding.button, GTK_ALIGN_END)
        root = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [adding.button, Widgets.scrolledCard(list)])
        gtk_widget_set_vexpand(root, 1)
    }

    /// Replaces the rows with `stations` (in one splice: one model change however many).
    func show(_ stations: [StationRow]) {
        let wanted = stations.map(\.name)
        let urls = Dictionary(stations.map { ($0.name, $0.url) }, uniquingKeysWith: { first, _ in first })
        if urls != marks.urls {
            marks.urls = urls
            for (row, name) in marks.bound { FavouriteRow.showURL(row, urls[name] ?? "") }
        }
        guard wanted != shown else { return }
        let count = UInt32(shown.count)
        shown = wanted
        Widgets.splice(names, removing: count, inserting: wanted)
        // The rows are bound again as the model changes: the moved station's row takes the focus back.
        if let follow = marks.follow, let row = marks.bound.first(where: { $0.value == follow })?.key { FavouriteRow.focus(row) }
        marks.follow = nil
    }

    /// The focus follows `station` to its new place when the list is next shown (it was moved from its row).
    func follow(_ station: String) {
        marks.follow = station
    }

    /// Marks `station` as the one playing, in the rows bound now: the model is left alone, so no row
    /// is made again on a switch (a row scrolled into view later is marked as it is bound).
    func markCurrent(_ station: String) {
        guard station != marks.current else { return }
        marks.current = station
        for (row, name) in marks.bound { FavouriteRow.mark(row, isCurrent: name == station) }
    }
}
