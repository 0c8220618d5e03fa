import ArgumentParser
import Foundation
import OtonHost

extension PluginsCommand {
    /// `oton plugins set ID KEY VALUE`: one key of a plugin's "config" in plugins.json, checked
    /// against the settings the plugin declares, written atomically.
    struct SetSetting: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: tr("Set one key of a plugin's config in plugins.json, checked against the settings the plugin declares."),
            discussion: HelpText.paragraphs(
                tr(
                    "The value is read as the setting's type: true or false, a number, text, or a list (comma-separated or JSON). A plugin that declares no settings gets the value as JSON when it parses, else as text. Only that value changes in the file; the file is replaced atomically. A running oton uses it from its next start."
                ),
                HelpText.examples(
                    "oton plugins set org.example.now-playing-file format '{artist} – {title}'", "oton plugins set org.oton.web-remote listen 127.0.0.1:8800")
            )
        )

        @Argument(help: ArgumentHelp(tr("The plugin's id in plugins.json")))
        var id: String

        @Argument(help: ArgumentHelp(tr("The key in its \"config\"")))
        var key: String

        @Argument(help: ArgumentHelp(tr("The value")))
        var value: String

        @OptionGroup var edited: EditedConfigOption

        func run() throws {
            do {
                let location = try EditableConfigLocation.choose(explicit: edited.config)
                let config = try ConfigLoader.load(explicit: location.path)
                guard let entry = config.plugins.first(where: { $0.id == id }) else {
                    throw StationsEditError.unknownPlugin(id: id, file: location.path, known: config.plugins.map(\.id))
                }
                let json = try typedValue(for: entry, configDirectory: (location.path as NSString).deletingLastPathComponent)
                try ConfigFolderLock.holding(location.path) { () throws(StationsEditError) in
                    try PluginConfigEdit.apply(key, json, plugin: id, path: location.path)
                }
                print(tr("{plugin}: config.{key} is now {value} in {file}", ["plugin": id, "key": key, "value": json.jsonText, "file": location.path]))
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.configuration
            }
        }

        /// The value as the plugin's declared setting for `key` takes it; refused for a key it does not declare.
        private func typedValue(for entry: PluginEntry, configDirectory: String) throws -> JSONValue {
            let probe = PluginManager(bus: PluginBus(), requests: NoPlayer())
            let settings = try PluginLibrary(path: try probe.resolve(entry.path, configDirectory: configDirectory)).manifest.settings
            guard !settings.isEmpty else {
                return (try? JSONValue.parse(Data(value.utf8))) ?? .string(value)
            }
            guard let setting = settings.first(where: { $0.key == key }) else {
                throw InspectFailure(description: PluginSettingsCheck.problems(config: .object([key: .null]), settings: settings).first ?? key)
            }
            switch setting.value(fromText: value) {
            case let .success(json): return json
            case let .failure(error): throw InspectFailure(description: error.message)
            }
        }
    }
}
