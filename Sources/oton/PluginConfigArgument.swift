import Foundation
import OtonHost

/// The config `plugins validate` and `plugins run` give a plugin: `--plugin-config` when given, else
/// the entry's in plugins.json when the plugin is named by its id, else `{}`. One rule for both.
enum PluginConfigArgument {
    /// The config as compact JSON text; throws when `--plugin-config` is not JSON or not an object.
    static func text(given: String?, plugin: String, configFile: String?) throws -> String {
        let entryConfig = (try? ConfigLoader.load(explicit: configFile))?.plugins.first { $0.id == plugin }?.config
        let parsed = try given.map { try JSONParser(maxBytes: 16 << 20).parse(Data($0.utf8)) } ?? entryConfig ?? .object([:])
        guard case .object = parsed else { throw InspectFailure(description: tr("it is not a JSON object")) }
        return parsed.jsonText
    }
}
