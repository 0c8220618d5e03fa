import OtonJSON
import OtonSupport

/// A plugin's "config" from plugins.json checked against the settings it declares (ABI 1.6), before
/// create(): what a person typed wrong, each problem in words with what to write instead.
public enum PluginSettingsCheck {
    /// Every problem of `config` (the "config" object) against `settings`; empty when it fits, or
    /// when the plugin declares no settings (it checks its config itself).
    public static func problems(config: JSONValue, settings: [PluginSetting]) -> [String] {
        guard !settings.isEmpty else { return [] }
        guard case let .object(members) = config else { return ["config must be an object"] }
        var problems: [String] = []
        for key in members.keys.sorted() {
            guard let value = members[key] else { continue }
            guard let setting = settings.first(where: { $0.key == key }) else {
                problems.append(unknownKey(key, settings: settings))
                continue
            }
            if let problem = setting.problem(with: value) { problems.append("config.\(key) \(problem)") }
        }
        for setting in settings where setting.required && members[setting.key] == nil {
            problems.append("config.\(setting.key) is required: \(setting.help.isEmpty ? setting.accepts : setting.help)")
        }
        return problems
    }

    /// "config.fromat is not a setting; did you mean "format"? (known: file, format)".
    static func unknownKey(_ key: String, settings: [PluginSetting]) -> String {
        let known = settings.map(\.key)
        let shown = "(known: \(known.joined(separator: ", ")))"
        if let nearest = nearest(to: key, among: known) {
            return "config.\(key) is not a setting; did you mean \"\(nearest)\"? \(shown)"
        }
        return "config.\(key) is not a setting \(shown)"
    }

    /// The known key within a small edit distance (``NearestWord``, the one owner of the guess).
    package static func nearest(to key: String, among known: [String]) -> String? {
        NearestWord.nearest(to: key, among: known)
    }

    package static func editDistance(_ a: String, _ b: String) -> Int {
        NearestWord.editDistance(a, b)
    }
}
