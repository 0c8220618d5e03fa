import Foundation
import OtonEvents
import OtonJSON

/// The child's "ready" message: the plugin's manifest as its descriptor declares it and the taps and
/// PCM format its create() chose. Its commands (declared and registered) come before it, one
/// `registered` frame each, so that no header grows with them past the 64 KiB cap. oton reads the
/// descriptor only through the child, so a library that crashes when loaded cannot end oton.
package enum IsolationManifest {
    package struct Ready {
        package var manifest: PluginManifest
        package var taps: UInt32
        package var pcm: PCMFormatChoice
        package var commands: [PluginManifest.Command]
    }

    /// A `registered` frame's header.
    package static func header(of command: PluginManifest.Command, declared: Bool) -> [String: JSONValue] {
        ["name": .string(command.name), "usage": .string(command.usage), "help": .string(command.help), "declared": .bool(declared)]
    }

    /// The command in a `registered` frame; checked by the registry (``CommandRule``), not here.
    package static func command(from header: [String: JSONValue]) -> PluginManifest.Command? {
        guard let name = header["name"]?.stringValue else { return nil }
        return PluginManifest.Command(name: name, usage: header["usage"]?.stringValue ?? name, help: header["help"]?.stringValue ?? "")
    }

    package static func header(of manifest: PluginManifest, taps: UInt32, pcm: PCMFormatChoice) -> [String: JSONValue] {
        func number(_ value: UInt32) -> JSONValue { .int(Int(value)) }
        return [
            "path": .string(manifest.path), "id": .string(manifest.id), "name": .string(manifest.name), "version": .string(manifest.version),
            "description": .string(manifest.description), "abi": [number(manifest.abiMajor), number(manifest.abiMinor)],
            "descriptor_size": .int(manifest.descriptorSize), "consumes": .strings(manifest.consumes), "media_taps": number(manifest.mediaTaps),
            "callbacks": [.bool(manifest.hasOnEvent), .bool(manifest.hasOnMedia), .bool(manifest.hasOnCommand)], "filter": .bool(manifest.hasFilter),
            "taps": number(taps), "pcm": [number(pcm.sampleFormat), number(pcm.rate), number(pcm.channels)],
        ]
    }

    /// The manifest the child sent; nil when anything required is missing or of the wrong kind
    /// (the child is untrusted: numbers that do not fit a UInt32 are refused, never truncated).
    package static func ready(from header: [String: JSONValue]) -> Ready? {
        func uint32(_ value: JSONValue?) -> UInt32? { value?.intValue.flatMap { UInt32(exactly: $0) } }
        func uint32s(_ key: String, count: Int) -> [UInt32]? {
            guard let items = header[key]?.arrayValue, items.count == count else { return nil }
            let values = items.compactMap(uint32)
            return values.count == count ? values : nil
        }
        guard let id = header["id"]?.stringValue, let abi = uint32s("abi", count: 2),
            let callbacks = header["callbacks"]?.arrayValue?.compactMap(\.boolValue), callbacks.count == 3,
            let pcm = uint32s("pcm", count: 3)
        else { return nil }
        let manifest = PluginManifest(
            path: header["path"]?.stringValue ?? "", id: id, name: header["name"]?.stringValue ?? id,
            version: header["version"]?.stringValue ?? "", description: header["description"]?.stringValue ?? "",
            abiMajor: abi[0], abiMinor: abi[1],
            descriptorSize: header["descriptor_size"]?.intValue ?? 0,
            consumes: header["consumes"]?.stringsValue ?? [], mediaTaps: uint32(header["media_taps"]) ?? 0,
            commands: [], hasOnEvent: callbacks[0], hasOnMedia: callbacks[1], hasOnCommand: callbacks[2],
            hasFilter: header["filter"]?.boolValue ?? false)
        return Ready(
            manifest: manifest, taps: uint32(header["taps"]) ?? 0,
            pcm: PCMFormatChoice(sampleFormat: pcm[0], rate: pcm[1], channels: pcm[2]),
            commands: [])
    }
}
