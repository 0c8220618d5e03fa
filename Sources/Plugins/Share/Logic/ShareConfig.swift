import OtonJSON

/// The plugin's settings: the text template, the search services and whether to copy to the clipboard.
public struct ShareSettings: Sendable, Equatable {
    public var template = ShareTemplate()
    public var services = ShareService.defaults
    public var clipboard = true

    public init() {}
}

/// Reads the plugin's "config": template (up to 1000 characters), services (up to 20
/// {name, url} with an http(s) url containing {query}), clipboard (true/false).
public enum ShareConfig {
    static let placeholders = "{artist} {title} {raw_title} {station} {station_url}"

    public static func parse(_ json: String) throws(PluginConfigError) -> ShareSettings {
        let config = try PluginConfigReader(json: json)
        try config.refuseUnknownKeys(known: ["template", "services", "clipboard"], owner: "a share")
        var settings = ShareSettings()
        if let text = try config.string(
            "template", nonEmpty: true, maxCount: 1000,
            expected: "a non-empty string of up to 1000 characters (placeholders: \(placeholders))")
        {
            settings.template = ShareTemplate(text)
        }
        let serviceShape = "{\"name\": …, \"url\": \"https://…{query}…\"}"
        if let services = try config.objects("services", expected: serviceShape) {
            guard services.count <= 20 else { throw config.error("services", "lists \(services.count) services; the limit is 20") }
            settings.services = try services.map { (service: PluginConfigReader) throws(PluginConfigError) -> ShareService in
                guard let name = try service.string("name", nonEmpty: true, maxCount: 100) else {
                    throw PluginConfigError("\(service.location) needs a \"name\"")
                }
                guard let url = try service.string("url"), url.hasPrefix("https://") || url.hasPrefix("http://"), url.contains("{query}") else {
                    throw PluginConfigError("\(service.location) needs an http(s) \"url\" containing {query}")
                }
                return ShareService(name: name, urlTemplate: url)
            }
        }
        if let flag = try config.bool("clipboard") { settings.clipboard = flag }
        return settings
    }
}
