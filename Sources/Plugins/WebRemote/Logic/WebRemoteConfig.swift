import OtonJSON

/// Reads the plugin's "config" object: listen ("127.0.0.1:8765" unless given), max_event_clients,
/// max_connections.
public struct WebRemoteConfig: Sendable {
    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 8765)
    public var listen = Self.defaultListen
    public var limits = ServerLimits()

    public init() {}

    public static func parse(_ json: String) throws(PluginConfigError) -> WebRemoteConfig {
        let reader = try PluginConfigReader(json: json, example: #"{"listen": "127.0.0.1:8765"}"#)
        try reader.refuseUnknownKeys(known: ["listen", "max_connections", "max_event_clients"], owner: "a web-remote")
        var config = WebRemoteConfig()
        if let text = try reader.string("listen", expected: "a string such as \"127.0.0.1:8765\"") {
            do {
                config.listen = try ListenAddress.parse(text, example: "127.0.0.1:8765")
            } catch {
                throw PluginConfigError(error.description)
            }
        }
        if let number = try reader.integer("max_connections", in: 2...1024) {
            config.limits.maximumConnections = number
            // Connections without the token keep to a quarter, so the token holder always finds a slot.
            config.limits.maximumWaitingConnections = min(config.limits.maximumWaitingConnections, max(1, number / 4))
            config.limits.maximumWaitingPerAddress = min(config.limits.maximumWaitingPerAddress, config.limits.maximumWaitingConnections)
        }
        if let number = try reader.integer("max_event_clients", in: 1...1024) {
            config.limits.maximumEventClients = number
        }
        return config
    }
}
