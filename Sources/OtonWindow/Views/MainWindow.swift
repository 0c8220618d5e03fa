import CGtk
import Foundation
import OtonSupport

/// The window: a header bar, now playing, the controls and the favourites, in a column that
/// stays readable from a phone-size 360 px to full screen (AdwClamp), tinted by the artwork's colour.
@MainActor
final class MainWindow {
    typealias Widget = Widgets.Widget
    let window: Widget
    private let nowPlaying = NowPlayingView()
    private let controls: ControlsBar
    private let favourites: FavouritesList
    private let actions: Actions
    /// History and Search are built the first time they are shown (most sessions never open them):
    /// until then their tab holds an empty box, and the window maps sooner.
    private var historyPage: HistoryPage?
    private var searchPage: SearchPage?
    private let historySlot = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 0, [])
    private let searchSlot = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 0, [])
    private var lists: Widget?
    private let toasts: Widget
    private let page: Widget
    private let tint = gtk_css_provider_new()!
    private var tintColour: String?
    private var recordStation: Widget?

    /// What the window's controls ask the application for.
    struct Actions {
        /// A control command ("next", "volume 40", …).
        var act: @MainActor ([String]) -> Void
        var playOrPause: @MainActor () -> Void
        var search: @MainActor (String) -> Void
        var searchHistory: @MainActor (String) -> Void
        /// The history page was shown for the first time (it is built then): fill it.
        var historyShown: @MainActor () -> Void
        /// A favourite's name and its new one.
        var rename: @MainActor (String, String) -> Void
        /// A favourite's name and its new URL.
        var setURL: @MainActor (String, String) -> Void
        /// A new favourite's name and URL ("Add a station").
        var addStation: @MainActor (String, String) -> Void
    }

    init(application: UnsafeMutablePointer<GtkApplication>, size: (width: Int32, height: Int32), actions: Actions) {
        controls = ControlsBar(act: actions.act, playOrPause: actions.playOrPause)
        self.actions = actions
        favourites = FavouritesList(rename: actions.rename, setURL: actions.setURL, add: actions.addStation)
        window = adw_application_window_new(application)!
        gtk_window_set_title(cast(window), "Oton")
        gtk_window_set_default_size(cast(window), size.width, size.height)
        gtk_widget_set_size_request(window, 360, 360)

        let header = adw_header_bar_new()!
        let title = adw_window_title_new("Oton", nil)!
        adw_header_bar_set_title_widget(cast(header), title)
        adw_header_bar_pack_end(cast(header), MainMenu.button())
        // The primary menu (Preferences, Keyboard Shortcuts, About, Quit) rightmost; Preferences (app.preferences, Ctrl+,), share the track (app.share), record it (app.record-track)
        // or the station (app.record-station).
        for (icon, name, action) in [
            ("emblem-system-symbolic", tr("Preferences"), "app.preferences"),
            ("send-to-symbolic", tr("Share"), "app.share"),
            ("document-save-symbolic", tr("Record this track"), "app.record-track"),
            ("media-record-symbolic", tr("Record this station"), "app.record-station"),
        ] {
            let button = Widgets.iconButton(icon: icon, name: name, circular: false)
            gtk_actionable_set_action_name(cast(button), action)
            adw_header_bar_pack_end(cast(header), button)
            if action == "app.record-station" { recordStation = button }
        }
        // The favourites and the tracks heard, one at a time, chosen with a switcher above them.
        let lists = gtk_stack_new()!
        gtk_stack_add_titled(cast(lists), favourites.root, "favourites", tr("Favourites"))
        gtk_stack_add_titled(cast(lists), historySlot, "history", tr("History"))
        gtk_stack_add_titled(cast(lists), searchSlot, "search", tr("Search"))
        gtk_widget_set_vexpand(lists, 1)
        gtk_widget_set_size_request(lists, -1, 120)
        let switcher = gtk_stack_switcher_new()!
        gtk_stack_switcher_set_stack(cast(switcher), cast(lists))
        gtk_widget_set_halign(switcher, GTK_ALIGN_START)
        // The tabs are as wide as the widest title: in a window narrower than the three (a phone's 360 px,
        // or longer titles in another language) they scroll sideways instead of widening the window.
        let tabs = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(cast(tabs), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER)
        gtk_scrolled_window_set_propagate_natural_width(cast(tabs), 1)
        gtk_scrolled_window_set_propagate_natural_height(cast(tabs), 1)
        gtk_scrolled_window_set_child(cast(tabs), switcher)
        self.lists = lists
        let listsBox = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [tabs, lists])
        let column = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 24, [nowPlaying.root, controls.root, listsBox])
        Widgets.margins(column, 18)
        let clamp = adw_clamp_new()!
        adw_clamp_set_maximum_size(cast(clamp), 760)
        adw_clamp_set_child(cast(clamp), column)
        gtk_widget_set_vexpand(clamp, 1)
        page = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 0, [header, clamp])
        gtk_widget_add_css_class(page, "oton-page")
        toasts = adw_toast_overlay_new()!
        adw_toast_overlay_set_child(cast(toasts), page)
        adw_application_window_set_content(cast(window), toasts)
        gtk_style_context_add_provider_for_display(gdk_display_get_default(), OpaquePointer(tint), UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        // The first focus is play/pause: GTK would focus the first control, "Record this station" in the
        // header bar, and Enter in a fresh window started a recording.
        gtk_window_set_focus(cast(window), controls.playPause)
        // A page shown for the first time is built then.
        Signal.connectObject(cast(lists), "notify::visible-child-name") { [unowned self] _ in
            switch visibleList {
            case "history" where historyPage == nil:
                _ = history
                self.actions.historyShown()
            case "search": _ = search
            default: break
            }
        }
    }

    func show(_ playing: NowPlaying, now: Double) {
        nowPlaying.show(playing, now: now)
        controls.show(playing, now: now)
        if !playing.station.isEmpty { favourites.markCurrent(playing.station) }
        if playing.colour != tintColour {
            tintColour = playing.colour
            // The colour is "#RRGGBB" (NowPlaying checks it): nothing else reaches the CSS.
            let css = playing.colour.map { ".oton-page { background-image: linear-gradient(to bottom, alpha(\($0), 0.35), transparent 60%); }" } ?? ""
            oton_gtk_load_css(tint, css)
        }
    }

    func showState(_ playing: NowPlaying, now: Double) {
        nowPlaying.showState(playing, now: now)
        controls.showBehind(playing, now: now)
    }

    func show(stations: [StationRow]) {
        favourites.show(stations)
    }

    /// A short message at the bottom (a refused command), gone after a few seconds; with `undo`, an
    /// "Undo" button on it for 10 s.
    func say(_ text: String, undo: (@MainActor () -> Void)? = nil) {
        // libadwaita 1.2 reads a toast's title as Pango markup (use-markup came in 1.4): escaped, it stays text.
        let escaped = g_markup_escape_text(text, -1)!
        let toast = adw_toast_new(escaped)!
        g_free(escaped)
        if let undo {
            adw_toast_set_button_label(toast, tr("Undo"))
            adw_toast_set_timeout(toast, 10)
            Signal.connect(UnsafeMutableRawPointer(toast), "button-clicked") { undo() }
        }
        adw_toast_overlay_add_toast(cast(toasts), toast)
    }

    /// The focus follows `station` to its new row once the list shows it moved.
    func followFocus(_ station: String) {
        favourites.follow(station)
    }

    /// "Add a station", above the favourites.
    var addStation: AddStationPopover { favourites.adding }

    /// Ctrl+F: the search page, its entry focused.
    func openSearch() {
        if let lists { gtk_stack_set_visible_child_name(cast(lists), "search") }
        search.focus()
    }

    /// "Record this station", or "Stop recording this station" while the recorder runs.
    func showRecordingStation(_ recording: Bool) {
        guard let recordStation else { return }
        let name = recording ? tr("Stop recording this station") : tr("Record this station")
        oton_gtk_accessible_label(recordStation, name)
        gtk_widget_set_tooltip_text(recordStation, name)
        if recording { gtk_widget_add_css_class(recordStation, "destructive-action") } else { gtk_widget_remove_css_class(recordStation, "destructive-action") }
    }

    /// The history page, built when first asked for.
    var history: HistoryPage {
        if let historyPage { return historyPage }
        let page = HistoryPage(search: actions.searchHistory)
        gtk_widget_set_vexpand(page.root, 1)
        gtk_box_append(cast(historySlot), page.root)
        historyPage = page
        return page
    }

    /// Whether the history page exists yet (it is filled only once it does).
    var hasHistory: Bool { historyPage != nil }

    /// The search page, built when first asked for.
    var search: SearchPage {
        if let searchPage { return searchPage }
        let page = SearchPage(search: actions.search)
        gtk_widget_set_vexpand(page.root, 1)
        gtk_box_append(cast(searchSlot), page.root)
        searchPage = page
        return page
    }

    /// The name of the list shown ("favourites", "history", "search").
    private var visibleList: String {
        guard let lists, let name = gtk_stack_get_visible_child_name(cast(lists)) else { return "" }
        return String(cString: name)
    }

    /// Puts `text` on the clipboard (the window's display's), and says so.
    func copy(_ text: String, saying message: String) {
        gdk_clipboard_set_text(gtk_widget_get_clipboard(window), text)
        say(message)
    }

    func present() {
        gtk_window_present(cast(window))
    }
}
