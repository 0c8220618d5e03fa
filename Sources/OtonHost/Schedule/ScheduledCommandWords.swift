/// What a unit's command may carry: a station and a config path that cannot turn into options.
/// Every unit writer joins values to their options (`--config=PATH`) and puts the station after
/// `--`; a station that begins with `-` is refused all the same (issue 39, N3: `--station=--config=…`
/// made an alarm load another config and its plugins).
public enum ScheduledCommandWords {
    /// Why `station` or `config` cannot go into a unit; nil when both can.
    public static func problem(station: String, config: String?) -> String? {
        if station.hasPrefix("-") {
            return tr("a station never begins with \"-\" (it would be read as an option): {station}", ["station": station])
        }
        if let config {
            guard config.hasPrefix("/") else { return tr("--config must be an absolute path in a unit: {path}", ["path": config]) }
            guard !config.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                return tr("the --config path contains control characters")
            }
        }
        return nil
    }
}
