import CGtk
import OtonSupport

/// Preferences (Ctrl+,): the player's plugins, each enabled or not with what it is (the
/// `plugins` command), and the alarms (`oton alarm`'s units: each with "Remove alarm N"; a new one
/// from "Alarm time", the days it rings on (a toggle per weekday, "Monday" … "Sunday": none or all
/// is every day) and "Alarm station" with "Add alarm"). Built the first time it opens, not at start.
@MainActor
final class PreferencesWindow {
    typealias Widget = Widgets.Widget
    let window: Widget
    private let group: Widget
    private var rows: [Widget] = []
    private let alarmGroup: Widget
    private var alarmRows: [Widget] = []
    private let alarmTime: Widget
    private let alarmStation: Widget
    /// Monday first, as `oton alarm add --days` counts (1 = Monday).
    private var dayToggles: [Widget] = []

    /// `addAlarm` gets the time and station typed and the weekdays chosen (1 = Monday); `removeAlarm` an alarm's number.
    /// "Keep playing when the window closes": its switch, and whether a change is the listener's (not `show`'s).
    private let keepPlaying: Widget
    private let keepPlayingRow: Widget
    private var showingKeepPlaying = false

    init(
        parent: Widget, addAlarm: @escaping @MainActor (String, String, Set<Int>) -> Void, removeAlarm: @escaping @MainActor (Int) -> Void,
        keepPlayingChanged: @escaping @MainActor (Bool) -> Void
    ) {
        self.removeAlarm = removeAlarm
        window = adw_preferences_window_new()!
        gtk_window_set_transient_for(cast(window), cast(parent))
        gtk_window_set_modal(cast(window), 1)
        gtk_window_set_hide_on_close(cast(window), 1)
        gtk_window_set_title(cast(window), tr("Preferences"))
        let page = adw_preferences_page_new()!
        adw_preferences_page_set_title(cast(page), tr("Plugins"))
        adw_preferences_page_set_icon_name(cast(page), "application-x-addon-symbolic")
        // The tray plugin's keep_playing (plugins.json), on the first page.
        let closing = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(closing), tr("When the window closes"))
        keepPlaying = gtk_switch_new()!
        oton_gtk_accessible_label(keepPlaying, tr("Keep playing when the window closes"))
        gtk_widget_set_valign(keepPlaying, GTK_ALIGN_CENTER)
        keepPlayingRow = adw_action_row_new()!
        adw_preferences_row_set_title(cast(keepPlayingRow), tr("Keep playing when the window closes"))
        adw_action_row_set_subtitle(cast(keepPlayingRow), tr("a notification says so; `oton window` opens it again (the tray plugin's keep_playing)"))
        adw_action_row_add_suffix(cast(keepPlayingRow), keepPlaying)
        adw_preferences_group_add(cast(closing), keepPlayingRow)
        adw_preferences_page_add(cast(page), cast(closing))
        group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), tr("Plugins"))
        adw_preferences_group_set_description(cast(group), tr("What this player runs: the plugins of plugins.json, each on or off by its \"enabled\""))
        adw_preferences_page_add(cast(page), cast(group))
        adw_preferences_window_add(cast(window), cast(page))

        let alarms = adw_preferences_page_new()!
        adw_preferences_page_set_title(cast(alarms), tr("Alarms"))
        adw_preferences_page_set_icon_name(cast(alarms), "alarm-symbolic")
        alarmGroup = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(alarmGroup), tr("Alarms"))
        adw_preferences_group_set_description(cast(alarmGroup), tr("systemd timers, as `oton alarm` writes them"))
        let adding = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(adding), tr("New alarm"))
        // The time as `oton alarm add` takes it: 07:00, "Tue 07:00", "2026-12-24 07:00".
        alarmTime = gtk_entry_new()!
        gtk_editable_set_text(cast(alarmTime), "07:00")
        alarmStation = gtk_entry_new()!
        for (entry, title, hint) in [
            (alarmTime, tr("Alarm time"), tr("07:00, \"Tue 07:00\" or \"2026-12-24 07:00\"")),
            (alarmStation, tr("Alarm station"), tr("a favourite's name or an http(s) URL")),
        ] {
            oton_gtk_accessible_label(entry, title)
            gtk_widget_set_valign(entry, GTK_ALIGN_CENTER)
            let row = adw_action_row_new()!
            adw_preferences_row_set_title(cast(row), title)
            adw_action_row_set_subtitle(cast(row), hint)
            adw_action_row_add_suffix(cast(row), entry)
            adw_preferences_group_add(cast(adding), row)
        }
        // The days: a toggle each, short names shown, full names said; none or all seven is every day.
        let days = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4)!
        gtk_widget_add_css_class(days, "linked")
        gtk_widget_set_valign(days, GTK_ALIGN_CENTER)
        for (short, full) in [
            (tr("Mon"), tr("Monday")), (tr("Tue"), tr("Tuesday")), (tr("Wed"), tr("Wednesday")), (tr("Thu"), tr("Thursday")),
            (tr("Fri"), tr("Friday")), (tr("Sat"), tr("Saturday")), (tr("Sun"), tr("Sunday")),
        ] {
            let toggle = gtk_toggle_button_new_with_label(short)!
            oton_gtk_accessible_label(toggle, full)
            gtk_widget_set_tooltip_text(toggle, full)
            gtk_box_append(cast(days), toggle)
            dayToggles.append(toggle)
        }
        let daysRow = adw_action_row_new()!
        adw_preferences_row_set_title(cast(daysRow), tr("Alarm days"))
        adw_action_row_set_subtitle(cast(daysRow), tr("none chosen: every day; with a time of HH:MM only"))
        adw_action_row_add_suffix(cast(daysRow), days)
        adw_preferences_group_add(cast(adding), daysRow)
        let add = gtk_button_new_with_label(tr("Add alarm"))!
        gtk_widget_add_css_class(add, "suggested-action")
        gtk_widget_set_halign(add, GTK_ALIGN_END)
        gtk_widget_set_margin_top(add, 12)
        adw_preferences_group_add(cast(adding), add)
        adw_preferences_page_add(cast(alarms), cast(alarmGroup))
        adw_preferences_page_add(cast(alarms), cast(adding))
        adw_preferences_window_add(cast(window), cast(alarms))
        Signal.connect(add, "clicked") { [unowned self] in
            addAlarm(Self.text(alarmTime), Self.text(alarmStation), chosenDays)
        }
        Signal.connectObject(keepPlaying, "notify::active") { [unowned self] _ in
            if !showingKeepPlaying { keepPlayingChanged(gtk_switch_get_active(cast(keepPlaying)) != 0) }
        }
    }

    /// The player's setting; nil: its tray plugin does not run, and the switch cannot act.
    func show(keepPlaying on: Bool?) {
        showingKeepPlaying = true
        gtk_switch_set_active(cast(keepPlaying), on == true ? 1 : 0)
        showingKeepPlaying = false
        gtk_widget_set_sensitive(keepPlaying, on == nil ? 0 : 1)
        if on == nil {
            adw_action_row_set_subtitle(cast(keepPlayingRow), tr("the player runs no tray plugin (org.oton.tray in plugins.json): it stops with its window"))
        }
    }

    /// A short message over the preferences (a refused alarm), as the main window says its own.
    func say(_ text: String) {
        let escaped = g_markup_escape_text(text, -1)!  // libadwaita 1.2 reads a toast's title as markup
        adw_preferences_window_add_toast(cast(window), adw_toast_new(escaped))
        g_free(escaped)
    }

    private let removeAlarm: @MainActor (Int) -> Void

    /// The weekdays toggled on, 1 = Monday … 7 = Sunday.
    private var chosenDays: Set<Int> {
        Set(dayToggles.indices.filter { gtk_toggle_button_get_active(cast(dayToggles[$0])) != 0 }.map { $0 + 1 })
    }

    private static func text(_ editable: Widget) -> String {
        String(cString: gtk_editable_get_text(cast(editable))).trimmingCharacters(in: .whitespaces)
    }

    /// The station a new alarm plays, until the listener types another: the one playing.
    func suggest(station: String) {
        if Self.text(alarmStation).isEmpty { gtk_editable_set_text(cast(alarmStation), station) }
    }

    /// One row per alarm: when, its station and next time, and its Remove button.
    func show(alarms: [AlarmRow]) {
        alarmRows = Self.replace(
            alarmRows, in: alarmGroup, empty: tr("no alarms"),
            with: alarms.map { alarm in
                let row = Self.row(title: alarm.title, subtitle: alarm.subtitle)
                let remove = Widgets.iconButton(icon: "user-trash-symbolic", name: tr("Remove alarm {number}", ["number": "\(alarm.number)"]), circular: false)
                gtk_widget_add_css_class(remove, "flat")
                Signal.connect(remove, "clicked") { [unowned self] in removeAlarm(alarm.number) }
                adw_action_row_add_suffix(cast(row), remove)
                return row
            })
    }

    /// One row per plugin: its name (the id when it did not load) and, below, its state and what it does.
    func show(plugins: [PluginRow]) {
        rows = Self.replace(
            rows, in: group, empty: tr("no plugins configured"),
            with: plugins.map { plugin in
                let row = Self.row(title: plugin.title, subtitle: plugin.subtitle)
                adw_action_row_set_subtitle_lines(cast(row), 3)
                let mark = gtk_image_new_from_icon_name(plugin.enabled ? "emblem-ok-symbolic" : "window-close-symbolic")!
                oton_gtk_accessible_label(mark, plugin.enabled ? tr("enabled") : tr("disabled"))
                adw_action_row_add_prefix(cast(row), mark)
                return row
            })
    }

    /// A row whose title and subtitle are text, never markup (names come from plugins and files).
    private static func row(title: String, subtitle: String?) -> Widget {
        let row = adw_action_row_new()!
        adw_preferences_row_set_use_markup(cast(row), 0)
        adw_preferences_row_set_title(cast(row), title)
        if let subtitle { adw_action_row_set_subtitle(cast(row), subtitle) }
        return row
    }

    /// Puts `rows` in `group` in place of `old` (one row saying `empty` when there are none); the rows now shown.
    private static func replace(_ old: [Widget], in group: Widget, empty: String, with rows: [Widget]) -> [Widget] {
        for row in old { adw_preferences_group_remove(cast(group), row) }
        let shown = rows.isEmpty ? [row(title: empty, subtitle: nil)] : rows
        for row in shown { adw_preferences_group_add(cast(group), row) }
        return shown
    }

    func present() { gtk_window_present(cast(window)) }
}
