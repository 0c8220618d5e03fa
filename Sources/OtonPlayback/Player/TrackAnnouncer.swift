import Foundation
import OtonEvents
import OtonMedia
import OtonStations
import PluginAPI

/// What the listener hears, announced: one Player's ``TrackAccumulator`` (the owner of the track
/// and its sequence), the station names a connection is known by, and the `track` events with
/// what plugins.json knows about the station. `@unchecked Sendable`: confined to the player's queue.
package final class TrackAnnouncer: @unchecked Sendable {
    private let bus: PluginBus
    private var accumulator: TrackAccumulator
    /// The stream's own title last heard (not the status API's), to tell when it changed.
    private var lastStreamTitle: String?
    /// The name the resolved stream gave itself (a playlist entry's title).
    private var resolvedStationTitle: String?
    /// The stream URL the latest connection played (a playlist's entry), to tell a reconnect to the
    /// same stream from one that lands elsewhere.
    private var connectedStreamURL: String?

    /// The station the last track event named: a title suggestion made for another is stale.
    private var publishedStation: String?

    package init(station: Station, bus: PluginBus) {
        self.bus = bus
        accumulator = TrackAccumulator(streamURL: URL(string: station.url))
        accumulator.stationNames = [station.name]
    }

    /// What is heard now.
    package var current: TrackInfo { accumulator.current }

    /// A switch: the old station's song ends here, not when the new one names a song, so everyone
    /// (status, MPRIS, the web remote, history) shows the new station with nothing heard yet.
    package func switched(to station: Station, stationCount: Int) {
        resolvedStationTitle = nil
        lastStreamTitle = nil
        publish(
            accumulator.changeStation(streamURL: URL(string: station.url), stationNames: [station.name]), station: station,
            stationCount: stationCount)
    }

    /// A connection to `stream` starts. `reconnect`: not the first one to this station.
    package func connecting(to stream: ResolvedStream, station: Station, reconnect: Bool, stationCount: Int) {
        let stationNames = [station.name] + [stream.stationTitle].compactMap { $0 }
        if reconnect, stream.url != connectedStreamURL {
            // A reconnect that lands on another stream (a playlist's other entry) is another station's sound.
            resolvedStationTitle = stream.stationTitle
            publish(
                accumulator.changeStation(streamURL: URL(string: stream.url), stationNames: stationNames), station: station,
                stationCount: stationCount)
        } else {
            // A first connection or one just after a switch starts fresh anyway; a reconnect keeps the song.
            accumulator.reset(keepStation: reconnect)
        }
        connectedStreamURL = stream.url
        accumulator.streamURL = URL(string: stream.url)
        resolvedStationTitle = stream.stationTitle
        accumulator.stationNames = stationNames
        lastStreamTitle = nil
    }

    /// Tags from the stream or the status API; a `track` event when the heard track changed.
    /// True when the stream's own title changed (the status API may know its artwork).
    package func apply(_ tags: TagSet, readAt: Int64?, station: Station, stationCount: Int) -> Bool {
        let heardChanged = tags.origin == .stream && tags.title != nil && tags.title != lastStreamTitle
        if heardChanged { lastStreamTitle = tags.title }
        if let report = accumulator.apply(tags) { publish(report, readAt: readAt, station: station, stationCount: stationCount) }
        return heardChanged
    }

    /// A plugin's title suggestion (song recognition): shown as a non-stream title with its source,
    /// under the accumulator's rule for those (only while the stream names no song; a stream title
    /// always wins), and only for the station it was made for. An empty title withdraws it.
    package func suggest(_ suggestion: TitleSuggestion, station: Station, stationCount: Int) {
        guard suggestion.station == publishedStation else { return }
        var tags = TagSet(origin: .statusAPI, title: suggestion.title.isEmpty ? nil : suggestion.title, artist: suggestion.artist)
        tags.titleSource = suggestion.source
        if let report = accumulator.apply(tags) { publish(report, station: station, stationCount: stationCount) }
    }

    /// A track event for everyone, with what plugins.json knows about the station as open-ended
    /// fields, and when the tags were read from the stream (plugins measure their latency with it).
    private func publish(_ report: TrackAccumulator.Report, readAt: Int64? = nil, station: Station, stationCount: Int) {
        var published = report.track
        if published.station == nil { published.station = resolvedStationTitle ?? station.name }
        publishedStation = published.station
        if let logo = station.logoURL.flatMap(URL.init(string:)) { published.stationLogoURL = logo }
        var event = BusEvent.track(published, sequence: report.sequence)
        event.extraFields = [
            (OTON_FIELD_STATION_HOMEPAGE, station.homepage),
            (OTON_FIELD_STATION_STATUS_URL, station.statusURL), (OTON_FIELD_TAG_MONO_NS, readAt.map { String($0) }),
            (OTON_FIELD_STATION_COUNT, String(stationCount)),
        ]
        .compactMap { key, value in value.map { (key, $0) } }
        bus.publish(event)
    }
}
