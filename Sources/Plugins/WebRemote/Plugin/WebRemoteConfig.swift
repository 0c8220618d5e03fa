import Foundation
import WebRemoteLogic

/// Reads the plugin's "config" object: listen ("127.0.0.1:8765" unless given), max_event_clients,
/// max_connections.
struct WebRemoteConfig {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    var listen = ListenAddress.default
    var limits = ServerLimits()

    static func parse(_ json: String) throws -> WebRemoteConfig {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw Invalid(description: "config must be a JSON object, e.g. {\"listen\": \"127.0.0.1:8765\"}")
        }
        var config = WebRemoteConfig()
        if let value = object["listen"] {
            guard let text = value as? String else { throw Invalid(description: "config.listen must be a string such as \"127.0.0.1:8765\"") }
            config.listen = try ListenAddress.parse(text)
        }
        if let value = object["max_connections"] {
            guard let number = value as? Int, (2 ... 1024).contains(number) else {
                throw Invalid(description: "config.max_connections must be a whole number from 2 to 1024")
            }
            config.limits.maximumConnections = number
        }
        if let value = object["max_event_clients"] {
            guard let number = value as? Int, (1 ... 1024).contains(number) else {
                throw Invalid(description: "config.max_event_clients must be a whole number from 1 to 1024")
            }
            config.limits.maximumEventClients = number
        }
        return config
    }
}
