import Foundation
import OtonHost

/// `oton plugins inspect` output.
enum ManifestPrinter {
    static func text(_ m: PluginManifest) -> String {
        var lines = [
            "path:        \(m.path)",
            "id:          \(m.id)",
            "name:        \(m.name)",
            "version:     \(m.version)",
            "description: \(m.description)",
            "abi:         \(m.abiVersion) (this oton: \(PluginLibrary.hostABI.major).\(PluginLibrary.hostABI.minor)), descriptor \(m.descriptorSize) bytes",
            "consumes:    \(m.consumes.isEmpty ? "(nothing)" : m.consumes.joined(separator: ", "))",
            "media taps:  \(m.mediaTapNames.isEmpty ? "(none)" : m.mediaTapNames.joined(separator: ", "))",
            "callbacks:   "
                + [m.hasOnEvent ? "on_event" : nil, m.hasOnMedia ? "on_media" : nil, m.hasOnCommand ? "on_command" : nil, m.hasFilter ? "filter" : nil]
                .compactMap { $0 }.joined(separator: ", "),
            "filter:      " + (m.hasFilter ? filterText : "(none)"),
            "commands:    \(m.commands.isEmpty ? "(none)" : "")",
        ]
        for command in m.commands {
            lines.append("  \(command.usage)\n      \(command.help)")
        }
        lines.append("settings:    \(m.settings.isEmpty ? "(none declared: the plugin checks its config itself)" : "(keys of its \"config\" in plugins.json)")")
        for setting in m.settings {
            var facts = [setting.accepts]
            if let value = setting.defaultValue { facts.append("default \(setting.secret ? "(hidden)" : value.jsonText)") }
            if setting.required { facts.append("required") }
            if setting.secret { facts.append("secret") }
            lines.append("  \(setting.key): \(facts.joined(separator: ", "))" + (setting.help.isEmpty ? "" : "\n      \(setting.help)"))
        }
        return lines.joined(separator: "\n")
    }

    /// The example buffer a filter's budget is shown for: 1024 frames at 44.1 kHz.
    private static let example = (frames: 1024, rate: UInt32(44_100))

    private static var filterText: String {
        let budget = String(format: "%.2f", FilterBudget.milliseconds(frames: example.frames, rate: example.rate))
        return
            "in place on the sound heard, after the effects; budget \(FilterBudget.rule) (\(budget) ms for \(example.frames) frames at 44.1 kHz); in process only"
    }

    static func json(_ m: PluginManifest) -> String {
        let commands = m.commands.map { JSONValue.object(["name": .string($0.name), "usage": .string($0.usage), "help": .string($0.help)]) }
        return JSONValue.object([
            "path": .string(m.path), "id": .string(m.id), "name": .string(m.name), "version": .string(m.version),
            "description": .string(m.description), "abi": .string(m.abiVersion),
            "descriptor_size": .number(Double(m.descriptorSize)),
            "consumes": .array(m.consumes.map(JSONValue.string)),
            "media_taps": .array(m.mediaTapNames.map(JSONValue.string)),
            "commands": .array(commands),
            "settings": .array(m.settings.map(setting)),
            "filter": m.hasFilter
                ? .object([
                    "budget": .string(FilterBudget.rule), "example_frames": .int(example.frames), "example_rate": .int(Int(example.rate)),
                    "example_budget_ms": .number(FilterBudget.milliseconds(frames: example.frames, rate: example.rate)),
                ]) : .null,
        ]).jsonText
    }

    /// A declared setting for a program (the web remote, the window): what it takes and its default.
    static func setting(_ s: PluginSetting) -> JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(s.key), "type": .string(s.kind.rawValue), "help": .string(s.help),
            "accepts": .string(s.accepts), "required": .bool(s.required), "secret": .bool(s.secret),
        ]
        if let value = s.defaultValue, !s.secret { object["default"] = value }
        if !s.choices.isEmpty { object["choices"] = .array(s.choices.map(JSONValue.string)) }
        if let range = s.range {
            object["minimum"] = .number(range.lowerBound)
            object["maximum"] = .number(range.upperBound)
        }
        return .object(object)
    }
}
