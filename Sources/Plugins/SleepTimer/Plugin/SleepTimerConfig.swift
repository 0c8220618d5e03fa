import Foundation
import SleepTimerLogic

/// Reads the plugin's "config" object: fade_seconds, action ("stop" | "pause" | "quit"), presets_minutes.
enum SleepTimerConfig {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ json: String) throws -> SleepTimerModel.Settings {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw Invalid(description: "config must be a JSON object")
        }
        var settings = SleepTimerModel.Settings()
        if let value = object["fade_seconds"] {
            guard let seconds = value as? Double, seconds >= 0, seconds <= 600 else {
                throw Invalid(description: "config.fade_seconds must be a number from 0 to 600")
            }
            settings.fadeMilliseconds = Int(seconds * 1000)
        }
        if let value = object["action"] {
            guard let text = value as? String, let action = SleepTimerModel.Action(rawValue: text) else {
                throw Invalid(description: "config.action must be \"stop\", \"pause\" or \"quit\"")
            }
            settings.action = action
        }
        if let value = object["presets_minutes"] {
            guard let list = value as? [Int], !list.isEmpty, list.allSatisfy({ $0 > 0 && $0 <= 1440 }) else {
                throw Invalid(description: "config.presets_minutes must be a list of minutes from 1 to 1440")
            }
            settings.presetsMinutes = list.sorted()
        }
        return settings
    }

}
