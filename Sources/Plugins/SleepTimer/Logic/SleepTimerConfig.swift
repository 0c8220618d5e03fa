import OtonJSON

/// Reads the plugin's "config" object: fade_seconds (0–600), action ("stop" | "pause" | "quit"),
/// presets_minutes (1–20 presets, each 1–1440 minutes, kept sorted).
public enum SleepTimerConfig {
    public static func parse(_ json: String) throws(PluginConfigError) -> SleepTimerModel.Settings {
        let config = try PluginConfigReader(json: json)
        try config.refuseUnknownKeys(known: ["fade_seconds", "action", "presets_minutes"], owner: "a sleep-timer")
        var settings = SleepTimerModel.Settings()
        if let seconds = try config.number("fade_seconds", in: 0...600) {
            settings.fadeMilliseconds = Int(seconds * 1000)
        }
        if let action = try config.choice("action", SleepTimerModel.Action.self) {
            settings.action = action
        }
        if let presets = try config.integers(
            "presets_minutes", in: 1...1440, count: 1...20,
            expected: "a list of 1 to 20 minutes, each from 1 to 1440")
        {
            settings.presetsMinutes = presets.sorted()
        }
        return settings
    }
}
