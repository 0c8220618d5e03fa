import FileSinkLogic
import Foundation
import OtonPluginKit
import PluginAPI

/// The file sink's descriptor and C entry points. It takes the encoded
/// stream tap only (recording as received); WAV/FLAC from the PCM tap is not
/// implemented, so the host never adds a PCM branch for it.
nonisolated(unsafe) let fileSinkDescriptor = PluginDescriptorBuilder(
    id: "org.oton.file-sink",
    name: "File sink",
    version: "0.1.0",
    description: "Records the stream as received, one file per track, with an index; record-current saves the track playing now",
    consumes: ["track", OTON_EVENT_NAME_ARTWORK_READY],
    mediaTaps: OTON_TAP_STREAM,
    commands: [(
        name: "record-current",
        usage: "record-current",
        help: "save the track playing now, from its start, and go on recording it to its end"
    )]
).build(
    create: { host, config, errorBuffer, errorSize in
        guard let host else {
            writeCreateError("no host table", into: errorBuffer, size: errorSize)
            return nil
        }
        do {
            let settings = try FileSinkSettings.parse(config.map { String(cString: $0) } ?? "{}")
            let instance = try FileSinkInstance(host: HostHandle(host), settings: settings)
            return Unmanaged.passRetained(instance).toOpaque()
        } catch {
            writeCreateError("\(error)", into: errorBuffer, size: errorSize)
            return nil
        }
    },
    destroy: { instance in
        guard let instance else { return }
        Unmanaged<FileSinkInstance>.fromOpaque(instance).takeRetainedValue().shutdown()
    },
    onEvent: { instance, event in
        guard let instance, let event else { return }
        Unmanaged<FileSinkInstance>.fromOpaque(instance).takeUnretainedValue().event(EventView(event).snapshot)
    },
    onMedia: { instance, buffer in
        guard let instance, let buffer else { return }
        Unmanaged<FileSinkInstance>.fromOpaque(instance).takeUnretainedValue().media(buffer)
    },
    onCommand: { instance, name, arguments, reply, replyContext in
        guard let instance else { return OTON_ERR_INVALID }
        let sink = Unmanaged<FileSinkInstance>.fromOpaque(instance).takeUnretainedValue()
        let list = (try? JSONSerialization.jsonObject(with: Data((arguments.map { String(cString: $0) } ?? "[]").utf8)) as? [String]) ?? []
        let (ok, text) = sink.command(name.map { String(cString: $0) } ?? "", list)
        reply?(replyContext, text)
        return ok ? OTON_OK : OTON_ERR_FAILED
    }
)

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    fileSinkDescriptor
}
