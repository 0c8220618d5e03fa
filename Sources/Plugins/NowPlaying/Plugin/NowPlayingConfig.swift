import Foundation
import NowPlayingLogic

/// The plugin's "config" object: mpris, notifications, notification_timeout_ms, skip_patterns.
struct NowPlayingConfig {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    var mpris = true
    var notifications = true
    /// -1 lets the notification server decide, 0 never expires.
    var notificationTimeoutMilliseconds: Int32 = 5000
    var skipPatterns = ["jingle"]

    static func parse(_ json: String) throws -> NowPlayingConfig {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw Invalid(description: "config must be a JSON object")
        }
        var config = NowPlayingConfig()
        if let value = object["mpris"] {
            guard let flag = value as? Bool else { throw Invalid(description: "config.mpris must be true or false") }
            config.mpris = flag
        }
        if let value = object["notifications"] {
            guard let flag = value as? Bool else { throw Invalid(description: "config.notifications must be true or false") }
            config.notifications = flag
        }
        if let value = object["notification_timeout_ms"] {
            guard let number = value as? Int, number >= -1, number <= 3_600_000 else {
                throw Invalid(description: "config.notification_timeout_ms must be -1 (server default), 0 (never) or up to 3600000")
            }
            config.notificationTimeoutMilliseconds = Int32(number)
        }
        if let value = object["skip_patterns"] {
            guard let list = value as? [String], list.count <= 100 else {
                throw Invalid(description: "config.skip_patterns must be a list of strings (jingle markers)")
            }
            config.skipPatterns = list
        }
        return config
    }
}
