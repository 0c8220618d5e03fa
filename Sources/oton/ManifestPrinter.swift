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
            "callbacks:   " + [m.hasOnEvent ? "on_event" : nil, m.hasOnMedia ? "on_media" : nil, m.hasOnCommand ? "on_command" : nil]
                .compactMap { $0 }.joined(separator: ", "),
            "commands:    \(m.commands.isEmpty ? "(none)" : "")",
        ]
        for command in m.commands {
            lines.append("  \(command.usage)\n      \(command.help)")
        }
        return lines.joined(separator: "\n")
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
        ]).jsonText
    }
}
