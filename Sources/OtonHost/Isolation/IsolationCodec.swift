import Foundation
import PluginAPI

/// What crosses the socket to an isolated plugin, as frame headers: bus events (by name, with their
/// fields; the child rebuilds the core kinds' payloads from them, so the plugin sees the same
/// structs as in-process), media packets, and player requests.
enum IsolationCodec {
    // MARK: Events

    static func header(of event: BusEvent) -> [String: Any] {
        ["name": event.name, "source": event.source, "flags": event.flags,
         "mono": event.monotonicNanoseconds, "wall": event.wallMicroseconds,
         "fields": event.fields.map { [$0.key, $0.value] }]
    }

    /// The event again, on the child's side; nil for a name its registry refuses.
    static func event(from header: [String: Any], registry: EventKindRegistry) -> BusEvent? {
        guard let name = header["name"] as? String, let kind = registry.kind(for: name) else { return nil }
        let fields = (header["fields"] as? [[String]] ?? []).compactMap { $0.count == 2 ? (key: $0[0], value: $0[1]) : nil }
        let value = { (key: String) in fields.last { $0.key == key }?.value }
        var payloadKeys: Set<String> = []
        let payload: BusEvent.Payload
        switch kind {
        case OTON_EVENT_TRACK:
            payloadKeys = ["sequence", "break", "title", "artist", "raw_title", "station", "genre", "bitrate", "codec",
                           "artwork_url", "stream_url", "station_logo_url"]
            let track = TrackInfo(title: value("title"), artist: value("artist"), rawTitle: value("raw_title"), station: value("station"),
                                  genre: value("genre"), bitrate: value("bitrate").flatMap { Int($0) }, codec: value("codec"),
                                  artworkURL: value("artwork_url").flatMap(URL.init(string:)),
                                  streamURL: value("stream_url").flatMap(URL.init(string:)),
                                  stationLogoURL: value("station_logo_url").flatMap(URL.init(string:)),
                                  isBreak: value("break") == "1")
            payload = .track(track, sequence: value("sequence").flatMap { UInt64($0) } ?? 0)
        case OTON_EVENT_STATE:
            payloadKeys = ["state", "buffering_percent", "retry_attempt", "error_kind", "error_message", "error_suggestion"]
            let code = PlaybackStateCode.allCases.first { $0.name == value("state") } ?? .idle
            let error = value("error_kind").map {
                StateInfo.ErrorDetail(kind: $0, message: value("error_message") ?? "", suggestion: value("error_suggestion") ?? "")
            }
            payload = .state(StateInfo(code, bufferingPercent: value("buffering_percent").flatMap { Int($0) },
                                       retryAttempt: value("retry_attempt").flatMap { Int($0) } ?? 0, error: error))
        case OTON_EVENT_VOLUME:
            payloadKeys = ["volume", "volume_percent"]
            payload = .volume(value("volume").flatMap(Double.init) ?? 1)
        case OTON_EVENT_DROPPED:
            payloadKeys = ["plugin_id", "media_tap", "dropped_events", "dropped_bytes"]
            payload = .dropped(DropInfo(pluginID: value("plugin_id") ?? "", mediaTap: value("media_tap").flatMap { UInt32($0) } ?? 0,
                                        droppedEvents: value("dropped_events").flatMap { UInt64($0) } ?? 0,
                                        droppedBytes: value("dropped_bytes").flatMap { UInt64($0) } ?? 0))
        default:
            payload = .none
        }
        return BusEvent(kind: kind, name: name, source: header["source"] as? String ?? "host",
                        flags: (header["flags"] as? NSNumber)?.uint32Value ?? 0, payload: payload,
                        extraFields: fields.filter { !payloadKeys.contains($0.key) },
                        monotonicNanoseconds: (header["mono"] as? NSNumber)?.int64Value ?? Clock.monotonicNanoseconds(),
                        wallMicroseconds: (header["wall"] as? NSNumber)?.int64Value ?? Clock.wallMicroseconds())
    }

    // MARK: Media

    static func header(of packet: MediaPacket, extraFlags: UInt32) -> [String: Any] {
        var header: [String: Any] = ["tap": packet.tap, "caps": packet.format.caps, "sample": packet.format.sampleFormat,
                                     "rate": packet.format.rate, "channels": packet.format.channels,
                                     "flags": packet.flags | extraFlags, "pts": packet.presentationNanoseconds,
                                     "offset": packet.offset, "connection": packet.connection]
        if let choice = packet.format.pcmChoice {
            header["pcm"] = [choice.sampleFormat, choice.rate, choice.channels]
        }
        return header
    }

    static func packet(from header: [String: Any], bytes: [UInt8], formats: inout [String: MediaFormat]) -> MediaPacket? {
        func number(_ key: String) -> NSNumber? { header[key] as? NSNumber }
        guard let tap = number("tap")?.uint32Value, let caps = header["caps"] as? String else { return nil }
        let pcm = (header["pcm"] as? [NSNumber]).flatMap { $0.count == 3 ? PCMFormatChoice(sampleFormat: $0[0].uint32Value, rate: $0[1].uint32Value, channels: $0[2].uint32Value) : nil }
        let key = "\(tap)|\(caps)|\(pcm.map(\.description) ?? "")"
        let format = formats[key] ?? MediaFormat(tap: tap, caps: caps, sampleFormat: number("sample")?.uint32Value ?? 0,
                                                  rate: number("rate")?.uint32Value ?? 0, channels: number("channels")?.uint32Value ?? 0,
                                                  pcmChoice: pcm)
        formats[key] = format
        return MediaPacket(format: format, copying: bytes, count: bytes.count, flags: number("flags")?.uint32Value ?? 0,
                           presentationNanoseconds: number("pts")?.int64Value ?? -1,
                           offset: number("offset")?.uint64Value ?? 0, connection: number("connection")?.uint64Value ?? 1)
    }

    // MARK: Requests (the ones a plugin can make)

    static func header(of request: PlayerRequest) -> [String: Any]? {
        switch request {
        case .play: ["r": "play"]
        case .pause: ["r": "pause"]
        case .playPause: ["r": "play-pause"]
        case .stop: ["r": "stop"]
        case .quit: ["r": "quit"]
        case let .setVolume(volume): ["r": "volume", "v": volume]
        case let .fadeVolume(volume, milliseconds): ["r": "fade", "v": volume, "ms": milliseconds]
        case let .switchStationNamed(name): ["r": "station", "s": name]
        case let .stepStation(step): ["r": "step", "n": step]
        case .changeVolume, .switchStation: nil // not reachable from the C ABI
        }
    }

    static func request(from header: [String: Any]) -> PlayerRequest? {
        let volume = (header["v"] as? NSNumber)?.doubleValue
        switch header["r"] as? String {
        case "play": return .play
        case "pause": return .pause
        case "play-pause": return .playPause
        case "stop": return .stop
        case "quit": return .quit
        case "volume": return volume.flatMap { $0.isFinite ? .setVolume(min(max($0, 0), 1.5)) : nil }
        case "fade": return volume.flatMap { $0.isFinite ? .fadeVolume(to: min(max($0, 0), 1.5), milliseconds: (header["ms"] as? NSNumber)?.intValue ?? 0) : nil }
        case "station": return (header["s"] as? String).map { .switchStationNamed($0) }
        case "step": return ((header["n"] as? NSNumber)?.intValue).map { .stepStation($0 < 0 ? -1 : 1) }
        default: return nil
        }
    }
}
