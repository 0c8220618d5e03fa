import Foundation
import ShareLogic

/// The plugin's "config": template, services [{name, url}], clipboard (true/false).
struct ShareSettings: Sendable {
    var template = ShareTemplate()
    var services = ShareService.defaults
    var clipboard = true
}

enum ShareConfig {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ json: String) throws -> ShareSettings {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw Invalid(description: "config must be a JSON object")
        }
        var settings = ShareSettings()
        if let value = object["template"] {
            guard let text = value as? String, !text.isEmpty, text.count <= 1000 else {
                throw Invalid(description: "config.template must be a non-empty string (placeholders: {artist} {title} {raw_title} {station} {station_url})")
            }
            settings.template = ShareTemplate(text)
        }
        if let value = object["services"] {
            guard let list = value as? [[String: Any]] else {
                throw Invalid(description: "config.services must be a list of {\"name\": …, \"url\": \"https://…{query}…\"}")
            }
            settings.services = try list.enumerated().map { index, item in
                guard let name = item["name"] as? String, let url = item["url"] as? String,
                      url.hasPrefix("https://") || url.hasPrefix("http://"), url.contains("{query}") else {
                    throw Invalid(description: "config.services[\(index)] needs \"name\" and an http(s) \"url\" containing {query}")
                }
                return ShareService(name: name, urlTemplate: url)
            }
        }
        if let value = object["clipboard"] {
            guard let flag = value as? Bool else { throw Invalid(description: "config.clipboard must be true or false") }
            settings.clipboard = flag
        }
        return settings
    }

}
