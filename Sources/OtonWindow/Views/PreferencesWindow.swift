import CGtk
import OtonSupport

/// Preferences (Ctrl+,): the player's plugins, each enabled or not with what it is (the
/// `plugins` command). Built the first time it opens, not at start.
@MainActor
final class PreferencesWindow {
    typealias Widget = Widgets.Widget
    let window: Widget
    private let group: Widget
    private var rows: [Widget] = []

    init(parent: Widget) {
        window = adw_preferences_window_new()!
        gtk_window_set_transient_for(cast(window), cast(parent))
        gtk_window_set_modal(cast(window), 1)
        gtk_window_set_hide_on_close(cast(window), 1)
        gtk_window_set_title(cast(window), tr("Preferences"))
        let page = adw_preferences_page_new()!
        adw_preferences_page_set_title(cast(page), tr("Plugins"))
        adw_preferences_page_set_icon_name(cast(page), "application-x-addon-symbolic")
        group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), tr("Plugins"))
        adw_preferences_group_set_description(cast(group), tr("What this player runs, from plugins.json; `oton plugins set ID --enable` or `--disable` changes it for the next start"))
        adw_preferences_page_add(cast(page), cast(group))
        adw_preferences_window_add(cast(window), cast(page))
    }

    /// One row per plugin: its name (the id when it did not load) and, below, its state and what it does.
    func show(plugins: [PluginRow]) {
        for row in rows { adw_preferences_group_remove(cast(group), row) }
        rows = plugins.map { plugin in
            let row = adw_action_row_new()!
            adw_preferences_row_set_use_markup(cast(row), 0)
            adw_preferences_row_set_title(cast(row), plugin.title)
            adw_action_row_set_subtitle(cast(row), plugin.subtitle)
            adw_action_row_set_subtitle_lines(cast(row), 3)
            let mark = gtk_image_new_from_icon_name(plugin.enabled ? "emblem-ok-symbolic" : "window-close-symbolic")!
            oton_gtk_accessible_label(mark, plugin.enabled ? tr("enabled") : tr("disabled"))
            adw_action_row_add_prefix(cast(row), mark)
            adw_preferences_group_add(cast(group), row)
            return row
        }
        if plugins.isEmpty {
            let row = adw_action_row_new()!
            adw_preferences_row_set_use_markup(cast(row), 0)
            adw_preferences_row_set_title(cast(row), tr("no plugins configured"))
            adw_preferences_group_add(cast(group), row)
            rows = [row]
        }
    }

    func present() { gtk_window_present(cast(window)) }
}
