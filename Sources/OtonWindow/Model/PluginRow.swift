import OtonJSON
import OtonSupport

/// A plugin as the preferences list it, from the `plugins` command's data: {id, status, path,
/// and for a running one name, description}. Pure.
public struct PluginRow: Equatable, Sendable {
    public var title: String
    public var subtitle: String
    public var enabled: Bool

    public static func list(from data: JSONValue?) -> [PluginRow] {
        guard case let .array(entries)? = data?["plugins"] else { return [] }
        return entries.compactMap { entry in
            guard let id = entry["id"]?.stringValue, let status = entry["status"]?.stringValue else { return nil }
            let name = entry["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let description = entry["description"]?.stringValue ?? ""
            let state: String
            if status.hasPrefix("running ") {
                state = tr("enabled, version {version}", ["version": String(status.dropFirst("running ".count))])
            } else if status == "disabled" {
                state = tr("disabled")
            } else {
                state = tr("enabled, did not load: {reason}", ["reason": String(status.drop { $0 != ":" }.dropFirst().drop { $0 == " " })])
            }
            let subtitle = [name.map { _ in id }, state, description.isEmpty ? nil : description].compactMap { $0 }.joined(separator: " · ")
            return PluginRow(title: name ?? id, subtitle: subtitle, enabled: status != "disabled")
        }
    }
}
