import OtonJSON

/// Reads the plugin's "config" object: listen ("127.0.0.1:9464" unless given) and station (the
/// label value; when absent, the `station` field of the session's track events names it).
public struct MetricsConfig: Sendable, Equatable {
    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 9464)
    public var listen = Self.defaultListen
    public var station: String?
    /// What /healthz asks: `health_share` of the stations receive, none silent for over `health_stall_seconds`.
    public var health = HealthVerdict.Rules()

    public init() {}

    public static func parse(_ json: String) throws(PluginConfigError) -> MetricsConfig {
        let reader = try PluginConfigReader(json: json, example: #"{"listen": "127.0.0.1:9464"}"#)
        try reader.refuseUnknownKeys(known: ["listen", "station", "health_share", "health_stall_seconds"], owner: "a metrics")
        var config = MetricsConfig()
        if let text = try reader.string("listen", expected: "a string such as \"127.0.0.1:9464\"") {
            do {
                config.listen = try ListenAddress.parse(text, example: "127.0.0.1:9464")
            } catch {
                throw PluginConfigError(error.description)
            }
        }
        config.station = try reader.string("station", nonEmpty: true, maxCount: 256, expected: "a station name of 1 to 256 characters")
        if let share = try reader.number("health_share", in: 0...1, expected: "a share of the stations from 0 to 1, such as 0.9") {
            config.health.share = share
        }
        if let seconds = try reader.number("health_stall_seconds", in: 1...3600, expected: "a number of seconds from 1 to 3600") {
            config.health.stallSeconds = seconds
        }
        return config
    }
}
