import Foundation
import OtonSupport
import PluginAPI

/// The one converter between the core kinds' payloads and their text fields (keys: the header's
/// OTON_FIELD_*). The bus, the isolation socket and the control socket all go through it, so a key
/// is spelt once, in the header.
extension BusEvent.Payload {
    /// Every value of the payload as text, in the header's order.
    package var fields: [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        func add(_ key: String, _ value: String?) {
            if let value { out.append((key, value)) }
        }
        switch self {
        case .none:
            break
        case let .track(track, sequence):
            add(OTON_FIELD_SEQUENCE, String(sequence))
            add(OTON_FIELD_BREAK, track.isBreak ? "1" : nil)
            add(OTON_FIELD_TITLE, track.title)
            add(OTON_FIELD_ARTIST, track.artist)
            add(OTON_FIELD_RAW_TITLE, track.rawTitle)
            add(OTON_FIELD_STATION, track.station)
            add(OTON_FIELD_GENRE, track.genre)
            add(OTON_FIELD_BITRATE, track.bitrate.map(String.init))
            add(OTON_FIELD_CODEC, track.codec)
            add(OTON_FIELD_ARTWORK_URL, track.artworkURL?.absoluteString)
            add(OTON_FIELD_STREAM_URL, track.streamURL?.absoluteString)
            add(OTON_FIELD_STATION_LOGO_URL, track.stationLogoURL?.absoluteString)
            add(OTON_FIELD_TITLE_SOURCE, track.title == nil ? nil : track.titleSource?.wireName)
        case let .state(state):
            add(OTON_FIELD_STATE, state.state.name)
            add(OTON_FIELD_BUFFERING_PERCENT, state.bufferingPercent.map(String.init))
            if state.retryAttempt > 0 { add(OTON_FIELD_RETRY_ATTEMPT, String(state.retryAttempt)) }
            add(OTON_FIELD_ERROR_KIND, state.error?.kind)
            add(OTON_FIELD_ERROR_MESSAGE, state.error?.message)
            add(OTON_FIELD_ERROR_SUGGESTION, state.error?.suggestion)
        case let .volume(volume):
            add(OTON_FIELD_VOLUME, format3(volume))
            add(OTON_FIELD_VOLUME_PERCENT, String(VolumeArgument.percent(of: volume)))
        case let .dropped(drop):
            add(OTON_FIELD_PLUGIN_ID, drop.pluginID)
            add(OTON_FIELD_MEDIA_TAP, String(drop.mediaTap))
            add(OTON_FIELD_DROPPED_EVENTS, String(drop.droppedEvents))
            add(OTON_FIELD_DROPPED_BYTES, String(drop.droppedBytes))
        }
        return out
    }

    /// The keys `fields` may produce for `kind`: what the payload owns, so the rest are extra fields.
    package static func keys(of kind: UInt32) -> Set<String> {
        switch kind {
        case OTON_EVENT_TRACK:
            [
                OTON_FIELD_SEQUENCE, OTON_FIELD_BREAK, OTON_FIELD_TITLE, OTON_FIELD_ARTIST, OTON_FIELD_RAW_TITLE, OTON_FIELD_STATION,
                OTON_FIELD_GENRE, OTON_FIELD_BITRATE, OTON_FIELD_CODEC, OTON_FIELD_ARTWORK_URL, OTON_FIELD_STREAM_URL,
                OTON_FIELD_STATION_LOGO_URL, OTON_FIELD_TITLE_SOURCE,
            ]
        case OTON_EVENT_STATE:
            [
                OTON_FIELD_STATE, OTON_FIELD_BUFFERING_PERCENT, OTON_FIELD_RETRY_ATTEMPT, OTON_FIELD_ERROR_KIND,
                OTON_FIELD_ERROR_MESSAGE, OTON_FIELD_ERROR_SUGGESTION,
            ]
        case OTON_EVENT_VOLUME:
            [OTON_FIELD_VOLUME, OTON_FIELD_VOLUME_PERCENT]
        case OTON_EVENT_DROPPED:
            [OTON_FIELD_PLUGIN_ID, OTON_FIELD_MEDIA_TAP, OTON_FIELD_DROPPED_EVENTS, OTON_FIELD_DROPPED_BYTES]
        default:
            []
        }
    }

    /// The payload of a core `kind` rebuilt from its text fields (the last value of a key wins);
    /// `.none` for other kinds.
    package init(kind: UInt32, fields: [(key: String, value: String)]) {
        let value = { (key: String) in fields.last { $0.key == key }?.value }
        switch kind {
        case OTON_EVENT_TRACK:
            let track = TrackInfo(
                title: value(OTON_FIELD_TITLE), artist: value(OTON_FIELD_ARTIST),
                rawTitle: value(OTON_FIELD_RAW_TITLE), station: value(OTON_FIELD_STATION),
                genre: value(OTON_FIELD_GENRE), bitrate: value(OTON_FIELD_BITRATE).flatMap { Int($0) },
                codec: value(OTON_FIELD_CODEC),
                artworkURL: value(OTON_FIELD_ARTWORK_URL).flatMap(URL.init(string:)),
                streamURL: value(OTON_FIELD_STREAM_URL).flatMap(URL.init(string:)),
                stationLogoURL: value(OTON_FIELD_STATION_LOGO_URL).flatMap(URL.init(string:)),
                isBreak: value(OTON_FIELD_BREAK) == "1",
                titleSource: value(OTON_FIELD_TITLE_SOURCE).flatMap(TitleSource.init(wireName:)))
            self = .track(track, sequence: value(OTON_FIELD_SEQUENCE).flatMap { UInt64($0) } ?? 0)
        case OTON_EVENT_STATE:
            let code = PlaybackStateCode.allCases.first { $0.name == value(OTON_FIELD_STATE) } ?? .idle
            let error = value(OTON_FIELD_ERROR_KIND).map {
                StateInfo.ErrorDetail(
                    kind: $0, message: value(OTON_FIELD_ERROR_MESSAGE) ?? "",
                    suggestion: value(OTON_FIELD_ERROR_SUGGESTION) ?? "")
            }
            self = .state(
                StateInfo(
                    code, bufferingPercent: value(OTON_FIELD_BUFFERING_PERCENT).flatMap { Int($0) },
                    retryAttempt: value(OTON_FIELD_RETRY_ATTEMPT).flatMap { Int($0) } ?? 0, error: error))
        case OTON_EVENT_VOLUME:
            self = .volume(value(OTON_FIELD_VOLUME).flatMap(Double.init).map(OutputVolume.clamped) ?? 1)
        case OTON_EVENT_DROPPED:
            self = .dropped(
                DropInfo(
                    pluginID: value(OTON_FIELD_PLUGIN_ID) ?? "",
                    mediaTap: value(OTON_FIELD_MEDIA_TAP).flatMap { UInt32($0) } ?? 0,
                    droppedEvents: value(OTON_FIELD_DROPPED_EVENTS).flatMap { UInt64($0) } ?? 0,
                    droppedBytes: value(OTON_FIELD_DROPPED_BYTES).flatMap { UInt64($0) } ?? 0))
        default:
            self = .none
        }
    }
}

/// Formats a 0…1 value with three decimals, without Foundation.
package func format3(_ value: Double) -> String {
    let thousandths = Int((value * 1000).rounded())
    let sign = thousandths < 0 ? "-" : ""
    let magnitude = abs(thousandths)
    let fraction = String(magnitude % 1000)
    return sign + String(magnitude / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
}
