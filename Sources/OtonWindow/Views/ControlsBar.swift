import CGtk
import OtonSupport

/// Previous, play/pause, stop, next and the volume (0–150 %, as the command line); below them, with
/// timeshift, how far behind live playback is and "Go live" (`live`), and the loudness levelling toggle (`level on|off`).
@MainActor
final class ControlsBar {
    typealias Widget = Widgets.Widget
    let root: Widget
    /// Play/pause: the window's first focus.
    let playPause: Widget
    private let volume: Widget
    private let volumeText: Widget
    private let sleepTimer: SleepTimerButton
    private let behind: Widget
    private let goLive: Widget
    private let levelling: Widget
    private let liveRow: Widget
    private var showsPause = false
    /// Set while the scale follows the player, so that following it sends nothing back.
    private var following = false

    /// `act` gets the control command a control asks for ("next", "volume 40", …).
    init(act: @escaping @MainActor ([String]) -> Void, playOrPause: @escaping @MainActor () -> Void) {
        let previous = Widgets.iconButton(icon: "media-skip-backward-symbolic", name: tr("Previous station"))
        playPause = Widgets.iconButton(icon: "media-playback-start-symbolic", name: tr("Play"))
        gtk_widget_add_css_class(playPause, "suggested-action")
        gtk_widget_set_size_request(playPause, 56, 56)
        let stop = Widgets.iconButton(icon: "media-playback-stop-symbolic", name: tr("Stop"))
        let next = Widgets.iconButton(icon: "media-skip-forward-symbolic", name: tr("Next station"))
        volume = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 150, 5)!
        gtk_range_set_increments(cast(volume), 5, 10)
        gtk_scale_add_mark(cast(volume), 100, GTK_POS_BOTTOM, nil)
        gtk_widget_set_hexpand(volume, 1)
        gtk_widget_set_size_request(volume, 120, -1)
        oton_gtk_accessible_label(volume, tr("Volume"))
        volumeText = Widgets.label(description: tr("Volume"))
        gtk_label_set_width_chars(cast(volumeText), 5)
        let speaker = gtk_image_new_from_icon_name("audio-volume-high-symbolic")!
        let buttons = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, [previous, playPause, stop, next])
        gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER)
        sleepTimer = SleepTimerButton(act: act)
        let volumeRow = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, [speaker, volume, volumeText, sleepTimer.root])
        behind = Widgets.label(description: tr("Behind live"), cssClasses: ["caption-heading"])
        gtk_widget_set_visible(behind, 0)
        goLive = gtk_button_new_with_label(tr("Go live"))!
        oton_gtk_accessible_label(goLive, tr("Go live"))
        gtk_widget_add_css_class(goLive, "pill")
        gtk_widget_set_visible(goLive, 0)
        levelling = gtk_toggle_button_new_with_label(tr("Loudness levelling"))!
        oton_gtk_accessible_label(levelling, tr("Loudness levelling"))
        gtk_widget_set_tooltip_text(levelling, tr("One loudness for every station (levelling to a target)"))
        gtk_widget_set_visible(levelling, 0)
        let gap = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        gtk_widget_set_hexpand(gap, 1)
        liveRow = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, [behind, goLive, gap, levelling])
        gtk_widget_set_visible(liveRow, 0)
        root = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 12, [buttons, volumeRow, liveRow])

        Signal.connect(previous, "clicked") { act(["prev"]) }
        Signal.connect(next, "clicked") { act(["next"]) }
        Signal.connect(stop, "clicked") { act(["stop"]) }
        Signal.connect(playPause, "clicked") { playOrPause() }
        Signal.connect(goLive, "clicked") { act(["live"]) }
        Signal.connect(levelling, "toggled") { [unowned self] () -> Void in
            if !following { act(["level", gtk_toggle_button_get_active(cast(levelling)) != 0 ? "on" : "off"]) }
        }
        Signal.connect(volume, "value-changed") { [unowned self] () -> Void in
            let percent = Int(gtk_range_get_value(cast(volume)).rounded())
            Widgets.setText(volumeText, "\(percent) %")
            if !following { act(["volume", "\(percent)"]) }
        }
    }

    func show(_ playing: NowPlaying, now: Double) {
        if playing.isPlaying != showsPause {
            showsPause = playing.isPlaying
            let name = showsPause ? tr("Pause") : tr("Play")
            gtk_button_set_icon_name(cast(playPause), showsPause ? "media-playback-pause-symbolic" : "media-playback-start-symbolic")
            gtk_widget_set_tooltip_text(playPause, name)
            oton_gtk_accessible_label(playPause, name)
        }
        let current = Int(gtk_range_get_value(cast(volume)).rounded())
        if current != playing.volumePercent {
            following = true
            gtk_range_set_value(cast(volume), Double(playing.volumePercent))
            following = false
        }
        Widgets.setText(volumeText, "\(playing.volumePercent) %")
        if let on = playing.levelling, (gtk_toggle_button_get_active(cast(levelling)) != 0) != on {
            following = true
            gtk_toggle_button_set_active(cast(levelling), on ? 1 : 0)
            following = false
        }
        gtk_widget_set_visible(levelling, playing.levelling == nil ? 0 : 1)
        showBehind(playing, now: now)
    }

    /// How far behind live, and "Go live" while more than a second behind (ticks each second while paused).
    func showBehind(_ playing: NowPlaying, now: Double) {
        let text = playing.behindLiveText(now: now)
        Widgets.setText(behind, text ?? "")
        gtk_widget_set_visible(behind, text == nil ? 0 : 1)
        gtk_widget_set_visible(goLive, (playing.behindLiveMilliseconds(now: now) ?? 0) >= 1000 ? 1 : 0)
        gtk_widget_set_visible(liveRow, text != nil || playing.levelling != nil ? 1 : 0)
    }
}
