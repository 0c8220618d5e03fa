import Foundation

/// The child's "ready" message: the plugin's manifest as its descriptor declares it, the taps and
/// PCM format its create() chose, and its commands (declared and registered). oton reads the
/// descriptor only through the child, so a library that crashes when loaded cannot end oton.
enum IsolationManifest {
    struct Ready {
        var manifest: PluginManifest
        var taps: UInt32
        var pcm: PCMFormatChoice
        var commands: [PluginManifest.Command]
    }

    static func header(of manifest: PluginManifest, taps: UInt32, pcm: PCMFormatChoice, commands: [[String]]) -> [String: Any] {
        ["path": manifest.path, "id": manifest.id, "name": manifest.name, "version": manifest.version,
         "description": manifest.description, "abi": [manifest.abiMajor, manifest.abiMinor], "descriptor_size": manifest.descriptorSize,
         "consumes": manifest.consumes, "media_taps": manifest.mediaTaps,
         "declared": manifest.commands.map { [$0.name, $0.usage, $0.help] },
         "callbacks": [manifest.hasOnEvent, manifest.hasOnMedia, manifest.hasOnCommand],
         "taps": taps, "pcm": [pcm.sampleFormat, pcm.rate, pcm.channels], "commands": commands]
    }

    static func ready(from header: [String: Any]) -> Ready? {
        func commands(_ key: String) -> [PluginManifest.Command] {
            (header[key] as? [[String]] ?? []).compactMap { $0.count == 3 ? PluginManifest.Command(name: $0[0], usage: $0[1], help: $0[2]) : nil }
        }
        guard let id = header["id"] as? String, let abi = header["abi"] as? [NSNumber], abi.count == 2,
              let callbacks = header["callbacks"] as? [Bool], callbacks.count == 3,
              let pcm = header["pcm"] as? [NSNumber], pcm.count == 3 else { return nil }
        let manifest = PluginManifest(
            path: header["path"] as? String ?? "", id: id, name: header["name"] as? String ?? id,
            version: header["version"] as? String ?? "", description: header["description"] as? String ?? "",
            abiMajor: abi[0].uint32Value, abiMinor: abi[1].uint32Value,
            descriptorSize: (header["descriptor_size"] as? NSNumber)?.intValue ?? 0,
            consumes: header["consumes"] as? [String] ?? [], mediaTaps: (header["media_taps"] as? NSNumber)?.uint32Value ?? 0,
            commands: commands("declared"), hasOnEvent: callbacks[0], hasOnMedia: callbacks[1], hasOnCommand: callbacks[2])
        return Ready(manifest: manifest, taps: (header["taps"] as? NSNumber)?.uint32Value ?? 0,
                     pcm: PCMFormatChoice(sampleFormat: pcm[0].uint32Value, rate: pcm[1].uint32Value, channels: pcm[2].uint32Value),
                     commands: commands("commands"))
    }
}
