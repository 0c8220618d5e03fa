import OtonJSON

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

    /// The known key within a small edit distance (a typo, a swapped pair), if one is clearly nearest.
    package static func nearest(to key: String, among known: [String]) -> String? {
        let limit = max(1, min(3, key.count / 3))
        let scored = known.map { ($0, editDistance(key.lowercased(), $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0 ... a.count { table[i][0] = i }
        for j in 0 ... b.count { table[0][j] = j }
        for i in 1 ... a.count {
            for j in 1 ... b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, table[i - 2][j - 2] + 1) }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}
