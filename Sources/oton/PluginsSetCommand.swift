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
            // ArgumentParser would show the value's list (below) as "[<value> ...]": it is one word.
            usage: "oton plugins set <id> <key> <value> [--config <config>]",
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

        /// The value, collected with every word no option takes: so a negative number (-6) is a
        /// value, where ArgumentParser would read it as an option and miss the value. `--` comes
        /// along as a word; what follows it is taken as it is.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("The value"), valueName: "value"))
        var words: [String] = []

        @OptionGroup var edited: EditedConfigOption

        /// The words without the `--` ArgumentParser passes along (the first: a later one is a value).
        private var values: [String] {
            guard let end = words.firstIndex(of: "--") else { return words }
            return Array(words[..<end] + words[(end + 1)...])
        }

        private var value: String { values.first ?? "" }

        func validate() throws {
            let beforeEnd = words.firstIndex(of: "--").map { Array(words[..<$0]) } ?? words
            if let option = beforeEnd.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
                throw ValidationError(
                    tr(
                        "unknown option {option}; a value that starts with - goes after --: oton plugins set {id} {key} -- {option}",
                        ["option": option, "id": id, "key": key]))
            }
            if values.isEmpty { throw ValidationError(tr("give the value after the key: oton plugins set {id} {key} VALUE", ["id": id, "key": key])) }
            if values.count > 1 {
                throw ValidationError(
                    tr(
                        "give one value, not {count} ({values}); quote a value with spaces",
                        ["count": String(values.count), "values": values.joined(separator: " ")]))
            }
        }

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
