import CGtk
import OtonSupport

/// The sleep timer: a button that opens its presets (15, 30, 60 minutes, after this track, off),
/// each the sleep timer plugin's command (`sleep 30m`, `sleep after-track`, `sleep cancel`).
@MainActor
final class SleepTimerButton {
    typealias Widget = Widgets.Widget
    let root: Widget
    private let popover: Widget

    init(act: @escaping @MainActor ([String]) -> Void) {
        root = Widgets.iconButton(icon: "alarm-symbolic", name: tr("Sleep timer"))
        popover = gtk_popover_new()!
        gtk_widget_set_parent(popover, root)
        let presets: [(String, [String])] = [
            (tr("15 minutes"), ["sleep", "15m"]), (tr("30 minutes"), ["sleep", "30m"]), (tr("60 minutes"), ["sleep", "60m"]),
            (tr("After this track"), ["sleep", "after-track"]), (tr("Sleep timer off"), ["sleep", "cancel"]),
        ]
        let rows = presets.map { title, command -> Widget in
            let button = gtk_button_new_with_label(title)!
            gtk_widget_add_css_class(button, "flat")
            Signal.connect(button, "clicked") { [unowned self] in
                gtk_popover_popdown(cast(popover))
                act(command)
            }
            return button
        }
        gtk_popover_set_child(cast(popover), Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 2, rows))
        Signal.connect(root, "clicked") { [unowned self] in gtk_popover_popup(cast(popover)) }
    }
}
