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
            abstract: tr("List the equalizer's presets and bands and every installed LV2 plugin with its parameters."),
            discussion: HelpText.paragraphs(
                tr("LV2 plugins are found in LV2_PATH, else in the system's folders (Debian: swh-lv2, x42-plugins, lsp-plugins-lv2 …)."),
                tr("plugins.json names one in \"effects\" by its URI; `oton ctl effect` changes it while playing."),
                HelpText.examples("oton effects list", "oton effects list --lv2 http://plugin.org.uk/swh-plugins/amp", "oton effects list --json")
            )
        )

        @Option(name: .long, help: ArgumentHelp(tr("Only this LV2 plugin (its URI)")))
        var lv2: String?

        @Flag(name: .long, help: ArgumentHelp(tr("Print JSON")))
        var json = false

        func run() throws {
            var plugins = EffectCatalogue.lv2Plugins()
            if let lv2 {
                plugins = plugins.filter { $0.uri == lv2 }
                guard !plugins.isEmpty else {
                    Terminal.error(EffectProblem.notInstalled(lv2).description)
                    throw ExitStatus.configuration
                }
            }
            if json {
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
                return
            }
            if lv2 == nil {
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
                print(
                    plugins.isEmpty
                        ? tr("no LV2 plugins installed (Debian: apt install swh-lv2, x42-plugins or lsp-plugins-lv2)")
                        : tr("{count} LV2 plugins (LV2_PATH, else the system's folders):", ["count": "\(plugins.count)"]))
            }
            for plugin in plugins {
                let shape = "\(plugin.audioInputs) in, \(plugin.audioOutputs) out"
                print("\(plugin.uri)  \(plugin.name)  (\(shape))" + (plugin.unsupported.map { "  " + tr("cannot run here: {reason}", ["reason": $0]) } ?? ""))
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
