import CGtk
import OtonSupport

/// The sleep timer: a button that opens its presets (15, 30, 60 minutes, after this track, off) and
/// a custom length ("Sleep minutes", "Start sleep timer"), each the sleep timer plugin's command
/// (`sleep 30m`, `sleep 45m`, `sleep after-track`, `sleep cancel`).
@MainActor
final class SleepTimerButton {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let popover: Widget
    /// The longest custom length, in minutes: the plugin takes up to 24 hours.
    static let maximumMinutes = 24.0 * 60

    init(act: @escaping @MainActor ([String]) -> Void) {
        root = Widgets.iconButton(icon: "alarm-symbolic", name: tr("Sleep timer"))
        popover = Widgets.popover(on: root)
        let presets: [(String, [String])] = [
            (tr("15 minutes"), ["sleep", "15m"]), (tr("30 minutes"), ["sleep", "30m"]), (tr("60 minutes"), ["sleep", "60m"]),
            (tr("After this track"), ["sleep", "after-track"]), (tr("Sleep timer off"), ["sleep", "cancel"]),
        ]
        var rows = presets.map { title, command -> Widget in
            let button = gtk_button_new_with_label(title)!
            gtk_widget_add_css_class(button, "flat")
            Signal.connect(button, "clicked") { [unowned self] in
                gtk_popover_popdown(cast(popover))
                act(command)
            }
            return button
        }
        let minutes = gtk_spin_button_new_with_range(1, Self.maximumMinutes, 5)!
        gtk_spin_button_set_value(cast(minutes), 45)
        oton_gtk_accessible_label(minutes, tr("Sleep minutes"))
        let start = gtk_button_new_with_label(tr("Start sleep timer"))!
        Signal.connect(start, "clicked") { [unowned self] in
            gtk_popover_popdown(cast(popover))
            act(["sleep", "\(Int(gtk_spin_button_get_value(cast(minutes)).rounded()))m"])
        }
        rows.append(Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, [minutes, start]))
        gtk_popover_set_child(cast(popover), Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 2, rows))
        Signal.connect(root, "clicked") { [unowned self] in gtk_popover_popup(cast(popover)) }
    }
}
