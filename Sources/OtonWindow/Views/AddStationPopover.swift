import CGtk
import OtonSupport

/// "Add a station": a button whose popover takes a name ("Station name") and a stream URL ("Station
/// URL"); "Add station" hands them on (`oton stations add NAME URL`). A refusal is said in the popover
/// (a label described "Add station problem"), which stays open to correct it; it closes once added.
@MainActor
final class AddStationPopover {
    typealias Widget = Widgets.Widget
    let button: Widget
    private let popover: Widget
    private let name: Widget
    private let url: Widget
    private let problem: Widget

    /// `add` gets the name and URL typed.
    init(add: @escaping @MainActor (String, String) -> Void) {
        button = gtk_button_new_with_label(tr("Add a station"))!
        gtk_widget_add_css_class(button, "flat")
        popover = Widgets.popover(on: button)
        name = gtk_entry_new()!
        oton_gtk_accessible_label(name, tr("Station name"))
        gtk_entry_set_placeholder_text(cast(name), tr("Station name"))
        url = gtk_entry_new()!
        oton_gtk_accessible_label(url, tr("Station URL"))
        gtk_entry_set_placeholder_text(cast(url), "https://")
        gtk_entry_set_input_purpose(cast(url), GTK_INPUT_PURPOSE_URL)
        problem = Widgets.label(description: tr("Add station problem"), cssClasses: ["error"], wraps: true)
        gtk_widget_set_visible(problem, 0)
        let apply = gtk_button_new_with_label(tr("Add station"))!
        gtk_widget_add_css_class(apply, "suggested-action")
        gtk_popover_set_child(cast(popover), Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [name, url, problem, apply]))
        let adding = { @MainActor [unowned self] in
            let typedName = text(name), typedURL = text(url)
            guard !typedName.isEmpty, !typedURL.isEmpty else { return refuse(tr("Give the station a name and its stream URL.")) }
            add(typedName, typedURL)
        }
        Signal.connect(apply, "clicked") { adding() }
        Signal.connect(url, "activate") { adding() }
        Signal.connect(button, "clicked") { [unowned self] in
            gtk_widget_set_visible(problem, 0)
            gtk_popover_popup(cast(popover))
        }
    }

    private func text(_ entry: Widget) -> String {
        String(cString: gtk_editable_get_text(cast(entry))).trimmingCharacters(in: .whitespaces)
    }

    /// Why the station was not added; the popover stays open.
    func refuse(_ reason: String) {
        Widgets.setText(problem, reason, limit: 400)
        gtk_widget_set_visible(problem, 1)
    }

    /// Added: the popover closes, its entries emptied for the next one.
    func added() {
        gtk_widget_set_visible(problem, 0)
        gtk_editable_set_text(cast(name), "")
        gtk_editable_set_text(cast(url), "")
        gtk_popover_popdown(cast(popover))
    }
}
