import Foundation
import OtonEvents
import PluginAPI

/// The events and media buffers the validator sends: every kind and shape a plugin can meet.
package enum ValidationStorms {
    package static let hostileText = "a \"quoted\" \\ back\nslash\t\u{1}é😀\u{2028}"

    // The same in every round, so made once: a storm is thousands of events, and making these
    // anew for each was most of a check's time in a debug build.
    private static let longTail = String(repeating: "x", count: 65536)
    private static let manyFields: [(key: String, value: String)] = (0..<1024).map { ("key\($0)", $0 % 2 == 0 ? hostileText : "") }

    /// One round of events of every kind `manifest` consumes (all of them for "*").
    package static func events(for manifest: PluginManifest, bus: PluginBus, round: Int) -> [BusEvent] {
        let all = manifest.consumes.contains("*")
        func wants(_ name: String) -> Bool { all || manifest.consumes.contains(name) }
        var events: [BusEvent] = []
        let sequence = UInt64(round * 3 + 1)
        if wants("track") {
            events.append(
                .track(
                    TrackInfo(
                        title: "Song \(round)", artist: "Artist", rawTitle: "Artist - Song \(round)", station: "Oton FM",
                        genre: "Jazz", bitrate: 128_000, codec: "MPEG-1 Layer 3",
                        artworkURL: URL(string: "http://127.0.0.1:9/cover.jpg"),
                        streamURL: URL(string: "http://127.0.0.1:9/stream")), sequence: sequence))
            var hostile = BusEvent.track(
                TrackInfo(
                    title: hostileText + (round % 7 == 0 ? longTail : "xxxxxxxxxx"),
                    artist: hostileText, rawTitle: hostileText), sequence: sequence + 1)
            hostile.extraFields = [(OTON_FIELD_TAG_MONO_NS, "-1"), (OTON_FIELD_STATION_COUNT, "999999999999"), ("", "")]
            events.append(hostile)
            events.append(.track(TrackInfo(station: "Oton FM", isBreak: true), sequence: sequence + 2))
            var replay = BusEvent.track(TrackInfo(), sequence: 0)
            replay.flags = OTON_EVENT_FLAG_REPLAY | 0x8000_0000  // and a flag bit nobody knows
            events.append(replay)
        }
        if wants("state") {
            for state in PlaybackStateCode.allCases {
                let error = state == .error ? StateInfo.ErrorDetail(kind: "stream-unavailable", message: hostileText, suggestion: hostileText) : nil
                events.append(
                    .state(
                        StateInfo(
                            state, bufferingPercent: state == .buffering ? round % 101 : nil,
                            retryAttempt: state == .error ? round : 0, error: error)))
            }
        }
        if wants("volume") {
            for volume in [0.0, 0.5, 1.0, 1.5] { events.append(.volume(volume)) }
        }
        if manifest.hasOnEvent {  // `dropped` reaches every plugin with on_event, listed or not
            events.append(
                BusEvent(
                    kind: OTON_EVENT_DROPPED, name: "dropped",
                    payload: .dropped(
                        DropInfo(
                            pluginID: manifest.id, mediaTap: OTON_TAP_PCM,
                            droppedEvents: UInt64(round), droppedBytes: UInt64.max))))
        }
        var names = manifest.consumes.filter { $0.contains(".") }
        if all { names.append("org.oton.validate.unknown-kind") }
        for name in names {
            guard let kind = bus.registry.kind(for: name) else { continue }
            events.append(BusEvent(kind: kind, name: name, source: "org.oton.validate"))
            events.append(
                BusEvent(
                    kind: kind, name: name, source: "org.oton.validate",
                    extraFields: manyFields))
        }
        return events
    }

    /// Buffers for one tap: a first buffer, DISCONT, a format change, an odd size, an empty
    /// buffer, a large one, and a new connection.
    /// PCM comes in the instance's chosen format (``PCMFormatChoice``): only what it left to the
    /// stream (rate, channels) changes from buffer to buffer.
    package static func media(tap: UInt32, pcm choice: PCMFormatChoice = .standard) -> [MediaPacket] {
        var packets: [MediaPacket] = []
        var offset: UInt64 = 0
        var connection: UInt64 = 1
        // Byte i is 31·i + 7 (mod 256), which repeats every 256 bytes: copied in blocks, not computed one by one.
        let period = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        func add(_ format: MediaFormat, _ count: Int, _ flags: UInt32 = 0) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            while bytes.count < count { bytes.append(contentsOf: period.prefix(count - bytes.count)) }
            packets.append(MediaPacket(format: format, bytes: bytes, flags: flags, offset: offset, connection: connection))
            offset += UInt64(count)
        }
        if tap == OTON_TAP_PCM {
            func pcm(_ sampleFormat: UInt32, _ rate: UInt32, _ channels: UInt32) -> MediaFormat {
                let format = choice == .standard ? sampleFormat : choice.sampleFormat
                let rate = choice.rate == 0 ? rate : choice.rate
                let channels = choice.channels == 0 ? channels : choice.channels
                let name = format == OTON_SAMPLE_F32LE ? "F32LE" : "S16LE"
                return MediaFormat(
                    tap: tap, caps: "audio/x-raw, format=(string)\(name), rate=(int)\(rate), channels=(int)\(channels)",
                    sampleFormat: format, rate: rate, channels: channels, pcmChoice: choice)
            }
            let stereo = pcm(OTON_SAMPLE_S16LE, 44100, 2)
            let float = pcm(OTON_SAMPLE_F32LE, 48000, 1)
            let wide = pcm(OTON_SAMPLE_S16LE, 8000, 8)
            add(stereo, 4096, OTON_MEDIA_FLAG_NEW_CONNECTION)
            add(stereo, 4096)
            add(stereo, 3)  // not a whole frame
            add(stereo, 4096, OTON_MEDIA_FLAG_DISCONT)
            add(float, 4096, OTON_MEDIA_FLAG_FORMAT_CHANGED)
            add(wide, 1000, OTON_MEDIA_FLAG_FORMAT_CHANGED | OTON_MEDIA_FLAG_DISCONT)
            add(wide, 0)
            add(wide, 1 << 20)
            connection += 1
            offset = 0
            add(stereo, 4096, OTON_MEDIA_FLAG_NEW_CONNECTION | OTON_MEDIA_FLAG_FORMAT_CHANGED)
        } else {
            let unknown = MediaFormat(tap: tap, caps: "application/octet-stream")
            let mpeg = MediaFormat(tap: tap, caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3")
            let ogg = MediaFormat(tap: tap, caps: "application/ogg")
            add(unknown, 1024, OTON_MEDIA_FLAG_NEW_CONNECTION)
            add(mpeg, 4096, OTON_MEDIA_FLAG_FORMAT_CHANGED)
            add(mpeg, 1)
            add(mpeg, 4096, OTON_MEDIA_FLAG_DISCONT)
            add(ogg, 4096, OTON_MEDIA_FLAG_FORMAT_CHANGED)
            add(ogg, 0)
            add(ogg, 1 << 20)
            connection += 1
            offset = 0
            add(mpeg, 4096, OTON_MEDIA_FLAG_NEW_CONNECTION | OTON_MEDIA_FLAG_FORMAT_CHANGED)
        }
        return packets
    }

    /// Ordinary buffers for one tap, as a steady stream sends them (4 KiB each, one format, the
    /// first starting a connection): what the leak check repeats.
    package static func steadyMedia(tap: UInt32, pcm choice: PCMFormatChoice = .standard) -> [MediaPacket] {
        // The first two of ``media(tap:pcm:)``'s sequence are a new connection and an ordinary buffer.
        let first = media(tap: tap, pcm: choice)[0]
        let format = tap == OTON_TAP_PCM ? first.format : MediaFormat(tap: tap, caps: "audio/mpeg, mpegversion=(int)1, layer=(int)3")
        var packets: [MediaPacket] = []
        for index in 0..<16 {
            var bytes = [UInt8](repeating: 0, count: 4096)
            for position in bytes.indices { bytes[position] = UInt8(truncatingIfNeeded: position &* 31 &+ index) }
            let flags: UInt32 = index == 0 ? OTON_MEDIA_FLAG_NEW_CONNECTION : 0
            packets.append(MediaPacket(format: format, bytes: bytes, flags: flags, offset: UInt64(index * 4096), connection: 1))
        }
        return packets
    }

    /// Argument lists no command expects.
    package static let badArguments: [[String]] = [
        [], [""], ["--no-such-option"], ["-1"], ["1e309"], ["NaN"], [hostileText],
        [String(repeating: "9", count: 65536)], Array(repeating: "x", count: 1000),
    ]
}
