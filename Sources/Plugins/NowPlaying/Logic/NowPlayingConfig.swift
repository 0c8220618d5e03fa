import OtonJSON

/// The plugin's "config" object: mpris, notifications, notification_timeout_ms, skip_patterns, inhibit_sleep.
public struct NowPlayingConfig: Sendable, Equatable {
    public var mpris = true
    public var notifications = true
    /// -1 lets the notification server decide, 0 never expires.
    public var notificationTimeoutMilliseconds: Int32 = 5000
    /// Titles containing one of these (case-insensitive) raise no notification (jingles).
    public var skipPatterns = ["jingle"]
    /// Keep the computer from suspending while playing (the Inhibit portal, else the screensaver's Inhibit).
    public var inhibitSleep = true

    public init() {}

    public static func parse(_ json: String) throws(PluginConfigError) -> NowPlayingConfig {
        let reader = try PluginConfigReader(json: json)
        try reader.refuseUnknownKeys(known: ["mpris", "notifications", "notification_timeout_ms", "skip_patterns", "inhibit_sleep"], owner: "a now-playing")
        var config = NowPlayingConfig()
        if let flag = try reader.bool("mpris") { config.mpris = flag }
        if let flag = try reader.bool("notifications") { config.notifications = flag }
        if let flag = try reader.bool("inhibit_sleep") { config.inhibitSleep = flag }
        if let milliseconds = try reader.integer(
            "notification_timeout_ms", in: -1...3_600_000,
            expected: "-1 (server default), 0 (never) or up to 3600000")
        {
            config.notificationTimeoutMilliseconds = Int32(milliseconds)
        }
        if let patterns = try reader.strings(
            "skip_patterns", maxCount: 100,
            expected: "a list of up to 100 strings (jingle markers)")
        {
            config.skipPatterns = patterns
        }
        return config
    }
}
