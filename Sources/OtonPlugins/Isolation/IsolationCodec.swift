import Foundation
import OtonEvents
import OtonJSON
import OtonSupport
import PluginAPI

/// What crosses the socket to an isolated plugin, as frame headers: bus events (by name, with their
/// fields; the child rebuilds the core kinds' payloads from them, so the plugin sees the same
/// structs as in-process), media packets, and player requests.
package enum IsolationCodec {
    // MARK: Events

    package static func body(of event: BusEvent) -> [UInt8] {
        var writer = IsolationBinaryWriter()
        writer.string(event.name)
        writer.string(event.source)
        writer.u32(event.flags)
        writer.i64(event.monotonicNanoseconds)
        writer.i64(event.wallMicroseconds)
        let fields = event.fields
        writer.u32(UInt32(fields.count))
        for field in fields {
            writer.string(field.key)
            writer.string(field.value)
        }
        return writer.bytes
    }

    /// The event again, on the other side; nil for a malformed body or a name the registry refuses.
    package static func event(fromBody body: [UInt8], registry: EventKindRegistry) -> BusEvent? {
        var reader = IsolationBinaryReader(body)
        guard let name = reader.string(), let source = reader.string(), let flags = reader.u32(),
            let mono = reader.i64(), let wall = reader.i64(), let count = reader.u32(), count <= 4096,
            let kind = registry.kind(for: name)
        else { return nil }
        var fields: [(key: String, value: String)] = []
        for _ in 0..<count {
            guard let key = reader.string(), let value = reader.string() else { return nil }
            fields.append((key, value))
        }
        return event(kind: kind, name: name, source: source, flags: flags, mono: mono, wall: wall, fields: fields)
    }

    /// Rebuilds the core kinds' payloads from their fields, so the plugin reads the same structs.
    private static func event(
        kind: UInt32, name: String, source: String, flags: UInt32, mono: Int64, wall: Int64,
        fields: [(key: String, value: String)]
    ) -> BusEvent {
        let payloadKeys = BusEvent.Payload.keys(of: kind)
        return BusEvent(
            kind: kind, name: name, source: source, flags: flags, payload: BusEvent.Payload(kind: kind, fields: fields),
            extraFields: fields.filter { !payloadKeys.contains($0.key) },
            monotonicNanoseconds: mono, wallMicroseconds: wall)
    }

    // MARK: Media

    /// The media frame's body: the format and the buffer's numbers; the bytes follow it in the frame.
    package static func body(of packet: MediaPacket, extraFlags: UInt32) -> [UInt8] {
        var writer = IsolationBinaryWriter()
        writer.u32(packet.tap)
        writer.string(packet.format.caps)
        writer.u32(packet.format.sampleFormat)
        writer.u32(packet.format.rate)
        writer.u32(packet.format.channels)
        writer.u32(packet.flags | extraFlags)
        writer.i64(packet.presentationNanoseconds)
        writer.u64(packet.offset)
        writer.u64(packet.connection)
        if let choice = packet.format.pcmChoice {
            writer.u8(1)
            writer.u32(choice.sampleFormat)
            writer.u32(choice.rate)
            writer.u32(choice.channels)
        } else {
            writer.u8(0)
        }
        return writer.bytes
    }

    /// Formats are kept by caps and choice, so the child's packets share them as the host's do.
    package static func packet(fromBody body: [UInt8], formats: inout [String: MediaFormat]) -> MediaPacket? {
        var reader = IsolationBinaryReader(body)
        guard let tap = reader.u32(), let caps = reader.string(), let sample = reader.u32(), let rate = reader.u32(),
            let channels = reader.u32(), let flags = reader.u32(), let pts = reader.i64(), let offset = reader.u64(),
            let connection = reader.u64(), let hasPCM = reader.u8()
        else { return nil }
        var pcm: PCMFormatChoice?
        if hasPCM == 1 {
            guard let format = reader.u32(), let pcmRate = reader.u32(), let pcmChannels = reader.u32() else { return nil }
            pcm = PCMFormatChoice(sampleFormat: format, rate: pcmRate, channels: pcmChannels)
        }
        let key = "\(tap)|\(caps)|\(pcm.map(\.description) ?? "")"
        let mediaFormat = formats[key] ?? MediaFormat(tap: tap, caps: caps, sampleFormat: sample, rate: rate, channels: channels, pcmChoice: pcm)
        formats[key] = mediaFormat
        let bytes = Array(reader.remaining)
        return MediaPacket(
            format: mediaFormat, copying: bytes, count: bytes.count, flags: flags,
            presentationNanoseconds: pts, offset: offset, connection: connection)
    }

    // MARK: Requests (the ones a plugin can make)

    package static func header(of request: PlayerRequest) -> [String: JSONValue]? {
        switch request {
        case .play: ["r": "play"]
        case .pause: ["r": "pause"]
        case .playPause: ["r": "play-pause"]
        case .stop: ["r": "stop"]
        case .quit: ["r": "quit"]
        case let .setVolume(volume): ["r": "volume", "v": .number(volume)]
        case let .fadeVolume(volume, milliseconds): ["r": "fade", "v": .number(volume), "ms": .int(milliseconds)]
        case let .switchStationNamed(name): ["r": "station", "s": .string(name)]
        case let .stepStation(step): ["r": "step", "n": .int(step)]
        case .changeVolume, .switchStation, .wakeUp, .setLevelling, .seek, .seekBehindLive, .setEffect: nil  // not reachable from the C ABI
        }
    }

    package static func request(from header: [String: JSONValue]) -> PlayerRequest? {
        let volume = header["v"]?.numberValue
        switch header["r"]?.stringValue {
        case "play": return .play
        case "pause": return .pause
        case "play-pause": return .playPause
        case "stop": return .stop
        case "quit": return .quit
        case "volume": return volume.flatMap(OutputVolume.clampedIfFinite).map { .setVolume($0) }
        case "fade": return volume.flatMap(OutputVolume.clampedIfFinite).map { .fadeVolume(to: $0, milliseconds: header["ms"]?.intValue ?? 0) }
        case "station": return header["s"]?.stringValue.map { .switchStationNamed($0) }
        case "step": return header["n"]?.intValue.map { .stepStation($0 < 0 ? -1 : 1) }
        default: return nil
        }
    }
}
