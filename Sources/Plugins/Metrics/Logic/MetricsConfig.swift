import OtonJSON

/// Reads the plugin's "config" object: listen ("127.0.0.1:9464" unless given) and station (the
/// label value; when absent, the `station` field of the session's track events names it).
public struct MetricsConfig: Sendable, Equatable {
    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 9464)
    public var listen = Self.defaultListen
    public var station: String?

    public init() {}

    public static func parse(_ json: String) throws(PluginConfigError) -> MetricsConfig {
        let reader = try PluginConfigReader(json: json, example: #"{"listen": "127.0.0.1:9464"}"#)
        try reader.refuseUnknownKeys(known: ["listen", "station"], owner: "a metrics")
        var config = MetricsConfig()
        if let text = try reader.string("listen", expected: "a string such as \"127.0.0.1:9464\"") {
            do {
                config.listen = try ListenAddress.parse(text, example: "127.0.0.1:9464")
            } catch {
                throw PluginConfigError(error.description)
            }
        }
        config.station = try reader.string("station", nonEmpty: true, maxCount: 256, expected: "a station name of 1 to 256 characters")
        return config
    }
}
