import ArgumentParser
import Foundation
import OtonHost

/// `oton effects list`: the effects plugins.json's `effects` can name here (docs/effects.md).
struct EffectsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "effects",
        abstract: tr("The effects on the audio: the built-in equalizer and the installed LV2 plugins."),
        subcommands: [List.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("List the equalizer's presets and bands and the installed LV2 plugins (--all: with their parameters)."),
            discussion: HelpText.paragraphs(
                tr("LV2 plugins are found in LV2_PATH, else in the system's folders (Debian: swh-lv2, x42-plugins, lsp-plugins-lv2 …)."),
                tr("plugins.json names one in \"effects\" by its URI; `oton ctl effect` changes it while playing."),
                HelpText.examples(
                    "oton effects list", "oton effects list compressor --all", "oton effects list --lv2 http://plugin.org.uk/swh-plugins/amp",
                    "oton effects list --json")
            )
        )

        @Argument(help: ArgumentHelp(tr("Only LV2 plugins whose URI or name contains this (any case)")))
        var filter: String?

        @Option(name: .long, help: ArgumentHelp(tr("Only this LV2 plugin (its URI)")))
        var lv2: String?

        @Flag(name: .long, help: ArgumentHelp(tr("Show each LV2 plugin's parameters (by default one line each: URI, name, ports)")))
        var all = false

        @Flag(name: .long, help: ArgumentHelp(tr("Print JSON")))
        var json = false

        func run() throws {
            var plugins: [LV2PluginInfo]
            if let lv2 {
                // One URI: read from its own bundle, the others never loaded.
                guard let plugin = EffectCatalogue.lv2Plugin(uri: lv2) else {
                    Terminal.error(EffectProblem.notInstalled(lv2).description)
                    throw ExitStatus.configuration
                }
                plugins = [plugin]
            } else {
                plugins = EffectCatalogue.lv2Plugins()
            }
            if let filter {
                plugins = plugins.filter { $0.uri.localizedCaseInsensitiveContains(filter) || $0.name.localizedCaseInsensitiveContains(filter) }
            }
            if json {
                printJSON(plugins)
                return
            }
            if lv2 == nil { printEqualizerAndCount(plugins.count) }
            for plugin in plugins {
                let shape = tr(
                    "{inputs} in, {outputs} out, {parameters} parameters",
                    ["inputs": "\(plugin.audioInputs)", "outputs": "\(plugin.audioOutputs)", "parameters": "\(plugin.parameters.count)"])
                print("\(plugin.uri)  \(plugin.name)  (\(shape))" + (plugin.unsupported.map { "  " + tr("cannot run here: {reason}", ["reason": $0]) } ?? ""))
                if all || lv2 != nil { printParameters(of: plugin) }
            }
            if !all, lv2 == nil, !plugins.isEmpty {
                print("")
                print(tr("`oton effects list --all` shows each plugin's parameters (with a filter: `oton effects list amp --all`)."))
            }
        }

        private func printJSON(_ plugins: [LV2PluginInfo]) {
            let list: [JSONValue] = plugins.map { plugin in
                [
                    "uri": .string(plugin.uri), "name": .string(plugin.name), "audio_inputs": .int(plugin.audioInputs),
                    "audio_outputs": .int(plugin.audioOutputs), "usable": .bool(plugin.unsupported == nil),
                    "unsupported": plugin.unsupported.map(JSONValue.string) ?? .null,
                    "parameters": .array(plugin.parameters.map(Self.json)),
                ]
            }
            let equalizer: JSONValue = [
                "presets": .strings(Equalizer.presetNames), "parameters": .array(EffectCatalogue.equalizerParameters.map(Self.json)),
            ]
            print(JSONValue.object(["equalizer": equalizer, "lv2": .array(list)]).prettyJSONText)
        }

        private func printEqualizerAndCount(_ count: Int) {
            print(tr("equalizer (built in: {\"equalizer\": PRESET})"))
            print("  " + tr("presets: {presets}", ["presets": Equalizer.presetNames.joined(separator: ", ")]))
            print(
                "  "
                    + tr(
                        "bands: {bands} (dB, {low} to {high})",
                        [
                            "bands": Equalizer.bandNames.joined(separator: ", "),
                            "low": EffectProblem.number(Equalizer.gainRange.lowerBound),
                            "high": EffectProblem.number(Equalizer.gainRange.upperBound),
                        ]))
            print("")
            if count > 0 {
                print(tr("{count} LV2 plugins (LV2_PATH, else the system's folders):", ["count": "\(count)"]))
            } else if let filter {
                print(tr("no installed LV2 plugin's URI or name contains \"{filter}\"", ["filter": filter]))
            } else {
                print(tr("no LV2 plugins installed (Debian: apt install swh-lv2, x42-plugins or lsp-plugins-lv2)"))
            }
        }

        private func printParameters(of plugin: LV2PluginInfo) {
            for parameter in plugin.parameters {
                let range = "\(EffectProblem.number(parameter.range.lowerBound))…\(EffectProblem.number(parameter.range.upperBound))"
                guard let fractions = parameter.rateFractions else {
                    print(
                        "    \(parameter.symbol)  \(parameter.name)  \(range), "
                            + tr("default {value}", ["value": EffectProblem.number(parameter.defaultValue)]))
                    continue
                }
                print(
                    "    \(parameter.symbol)  \(parameter.name)  "
                        + tr(
                            "{range} Hz, default {value} Hz at 48 kHz ({fraction_low}…{fraction_high} times the stream's sample rate)",
                            [
                                "range": range, "value": EffectProblem.number(parameter.defaultValue.rounded()),
                                "fraction_low": EffectProblem.number(fractions.range.lowerBound),
                                "fraction_high": EffectProblem.number(fractions.range.upperBound),
                            ]))
            }
        }

        static func json(_ parameter: EffectParameter) -> JSONValue {
            func number(_ value: Double) -> JSONValue { value.isFinite ? .number(value) : .null }
            var entry: [String: JSONValue] = [
                "symbol": .string(parameter.symbol), "name": .string(parameter.name), "minimum": number(parameter.range.lowerBound),
                "maximum": number(parameter.range.upperBound), "default": number(parameter.defaultValue),
            ]
            if let fractions = parameter.rateFractions {
                // minimum, maximum and default are in Hz at this rate; the fractions hold at any rate.
                entry["unit"] = .string("Hz")
                entry["at_rate"] = .number(EffectParameter.referenceRate)
                entry["rate_fraction"] = [
                    "minimum": number(fractions.range.lowerBound), "maximum": number(fractions.range.upperBound), "default": number(fractions.defaultValue),
                ]
            }
            return .object(entry)
        }
    }
}
