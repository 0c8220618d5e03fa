import CGtk
import OtonSupport

/// Artwork, station, title, artist, the state in words and the error with its suggestion.
@MainActor
final class NowPlayingView {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let artwork: Widget
    private let station: Widget
    private let title: Widget
    private let artist: Widget
    private let state: Widget
    private let problem: Widget
    private let sleep: Widget
    private var shownArtwork: String?
    private var builtInShown = false

    init() {
        artwork = gtk_picture_new()!
        gtk_picture_set_content_fit(cast(artwork), GTK_CONTENT_FIT_COVER)
        gtk_widget_set_size_request(artwork, 160, 160)
        gtk_widget_set_valign(artwork, GTK_ALIGN_START)
        gtk_widget_add_css_class(artwork, "card")
        oton_gtk_accessible_label(artwork, tr("Artwork"))
        station = Widgets.label(description: tr("Station"), cssClasses: ["dim-label", "heading"])
        title = Widgets.label(description: tr("Title"), cssClasses: ["title-2"])
        artist = Widgets.label(description: tr("Artist"), cssClasses: ["title-4"])
        state = Widgets.label(description: tr("State"), cssClasses: ["caption-heading"])
        problem = Widgets.label(description: tr("Error"), cssClasses: ["error"], wraps: true)
        gtk_widget_set_visible(problem, 0)
        sleep = Widgets.label(description: tr("Sleep timer"), cssClasses: ["caption", "dim-label"])
        gtk_widget_set_visible(sleep, 0)
        let text = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [station, title, artist, state, sleep, problem])
        gtk_widget_set_hexpand(text, 1)
        gtk_widget_set_valign(text, GTK_ALIGN_CENTER)
        root = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 18, [artwork, text])
        showBuiltInArtwork()
    }

    func show(_ playing: NowPlaying, now: Double) {
        Widgets.setText(station, playing.station)
        Widgets.setText(title, playing.title)
        Widgets.setText(artist, playing.artist)
        showState(playing, now: now)
        let problemText = playing.problemText
        Widgets.setText(problem, problemText ?? "", limit: 4000)
        gtk_widget_set_visible(problem, problemText == nil ? 0 : 1)
        gtk_picture_set_alternative_text(cast(artwork), playing.artworkDescription)
        if let path = playing.artworkPath {
            if path != shownArtwork {
                gtk_picture_set_filename(cast(artwork), path)
                shownArtwork = path
                builtInShown = false
            }
        } else {
            showBuiltInArtwork()
        }
    }

    /// The state and sleep lines alone (their countdowns tick every second).
    func showState(_ playing: NowPlaying, now: Double) {
        Widgets.setText(state, playing.stateText(now: now))
        let sleepText = playing.sleepText(now: now)
        Widgets.setText(sleep, sleepText ?? "")
        gtk_widget_set_visible(sleep, sleepText == nil ? 0 : 1)
    }

    /// The app's own icon from the theme, when no artwork came.
    private func showBuiltInArtwork() {
        guard !builtInShown else { return }
        builtInShown = true
        shownArtwork = nil
        let theme = gtk_icon_theme_get_for_display(gdk_display_get_default())
        let name = gtk_icon_theme_has_icon(theme, WindowApplication.identifier) != 0 ? WindowApplication.identifier : "audio-x-generic"
        let icon = gtk_icon_theme_lookup_icon(theme, name, nil, 256, 1, GTK_TEXT_DIR_LTR, GtkIconLookupFlags(0))
        gtk_picture_set_paintable(cast(artwork), icon)
        if let icon { g_object_unref(UnsafeMutableRawPointer(icon)) }
    }
}
