import Foundation
import OtonEvents

/// Where a tag set came from.
public enum TagOrigin: Hashable, Sendable {
    /// A GStreamer TAG message (ICY metadata, Ogg comments, …).
    case stream
    /// A poll of the station's status API (see ``StationStatusParser``).
    case statusAPI
}

/// One partial set of tags. `nil` means "not in this message".
/// Text is decoded but untrusted; it is normalized by the accumulator.
/// Hosts holding raw bytes decode them with ``TitleByteDecoder`` first.
public struct TagSet: Hashable, Sendable {
    public var origin: TagOrigin
    public var title: String?
    public var artist: String?
    /// GST_TAG_ORGANIZATION / icy-name, or the status API's station name.
    public var station: String?
    public var genre: String?
    /// GST_TAG_BITRATE in bit/s (VBR streams report it every second).
    public var bitrate: Int?
    /// GST_TAG_NOMINAL_BITRATE in bit/s.
    public var nominalBitrate: Int?
    /// GST_TAG_AUDIO_CODEC, e.g. "MPEG-1 Layer 3 (MP3)".
    public var codec: String?
    public var artworkURL: URL?
    /// The station's logo (status API), sent to plugins as `station_logo_url`.
    public var logoURL: URL?
    /// Where a non-stream set's title came from (ignored for `.stream` sets, whose titles are the stream's).
    public var titleSource: TitleSource = .stationAPI

    public init(
        origin: TagOrigin = .stream, title: String? = nil, artist: String? = nil,
        station: String? = nil, genre: String? = nil, bitrate: Int? = nil,
        nominalBitrate: Int? = nil, codec: String? = nil, artworkURL: URL? = nil, logoURL: URL? = nil
    ) {
        self.origin = origin
        self.title = title
        self.artist = artist
        self.station = station
        self.genre = genre
        self.bitrate = bitrate
        self.nominalBitrate = nominalBitrate
        self.codec = codec
        self.artworkURL = artworkURL
        self.logoURL = logoURL
    }

    /// These tags, with what `earlier` said and these do not (the station's name, genre, codec, bitrates):
    /// a stream's first title joined to what its response headers said.
    public func filling(from earlier: TagSet) -> TagSet {
        var joined = self
        joined.station = station ?? earlier.station
        joined.genre = genre ?? earlier.genre
        joined.codec = codec ?? earlier.codec
        joined.bitrate = bitrate ?? earlier.bitrate
        joined.nominalBitrate = nominalBitrate ?? earlier.nominalBitrate
        return joined
    }

    /// A status-API snapshot: the track's cover, and the station's logo apart from it. `source` says
    /// whose API it was (the station's own `status_url`, or a provider rule).
    public init(status: StationStatus, source: TitleSource = .stationAPI) {
        self.init(
            origin: .statusAPI, title: status.title, station: status.stationName,
            artworkURL: status.artworkURL, logoURL: status.logoURL)
        titleSource = source
    }

    /// Whether this set carries anything a listener sees.
    package var hasVisibleField: Bool {
        origin == .statusAPI || title != nil || artist != nil || station != nil || artworkURL != nil
    }
}

/// Merges partial tag sets into a ``TrackInfo`` and reports only changes a
/// listener would notice.
///
/// Rules:
/// - **Emission.** `apply` returns the full, current `TrackInfo` only when
///   the set carries a visible field (title, artist, station, artwork, or is
///   a status-API snapshot) *and* the visible projection (title, artist,
///   station, artworkURL) differs from the last one returned — or when the
///   codec becomes known or changes (a titleless station would otherwise
///   never report it: status, casting and the recorder's names need it).
///   Bitrate and genre never trigger an event on their own, but are always
///   current in the next event.
/// - **Stream title.** A stream set with `title` starts a new track: it is
///   normalized together with the same set's `artist` (explicit ARTIST wins
///   over "Artist - Title" splitting). A set with `artist` but no `title`
///   re-normalizes the last stream title with that artist.
/// - **Breaks.** A stream title that names no track — empty, "-",
///   "Unknown - Unknown", the station's own name (see
///   ``TagNormalizer/isPlaceholder(_:stationNames:)``) — is never shown. Once
///   the stream has named a real track for this station, such a title is a
///   *break* (an ad, a jingle): `isBreak` is set and title, artist, raw title
///   and artwork are absent, also what the status API says, until the stream
///   names a track again. Before the stream named any track it is just "no
///   title" (the status API may fill it in).
/// - **Sequence.** This type alone numbers the heard tracks: `apply` returns
///   the sequence with the track, a new number if and only if the heard track
///   changed — its title, its artist, a break began, or the listener moved
///   to another station (see **Another station**). Station, artwork,
///   bitrate arriving later keep the number; an event without a title and
///   without a break keeps it too. Numbers start at 1, never go back, and
///   survive ``reset(keepStation:)`` (0 until the first heard track).
/// - **Status title.** Used only while the stream provides no title. A
///   status-API set is a snapshot: its title and artwork replace the
///   previous status values, even when `nil`; its logo only when it carries
///   one. A stream set changes artwork only when it carries one. A new
///   stream title drops the status artwork: it described the previous track
///   (the host passes a status set only once its title matches the heard one,
///   see ``StationStatusLookup``). The report's `titleSource` says whose
///   title is shown: `.stream` for the stream's, else the status set's own
///   ``TagSet/titleSource`` (the station's API, a provider rule, recognition).
/// - **Sticky fields.** Station, genre, codec and bitrate keep their last
///   non-empty value until ``reset(keepStation:)``. The stream's station
///   name wins over the status API's. The nominal bitrate wins over the
///   per-second measured bitrate; values ≤ 0 are ignored.
/// - **Another station.** A switch, or a reconnect to another stream URL,
///   ends the heard track: ``changeStation(streamURL:stationNames:)``
///   forgets everything the old station said (title, artist, station name,
///   codec, bitrate, artwork) and returns the report to publish at once:
///   nothing heard yet, under a new sequence. The next title is another new
///   sequence, even when it is the song the old station played.
/// - **Reset.** On a new connection to the same stream call
///   `reset(keepStation: true)`: the station, the last reported projection
///   and heard track, and whether the stream has titles are kept, so the
///   same song (or break) arriving again after the reconnect is not reported
///   twice. With `keepStation: false` everything is forgotten except the
///   sequence, and nothing is reported.
public struct TrackAccumulator: Sendable {
    /// A track event's payload and the number of the heard track it belongs to.
    public struct Report: Equatable, Sendable {
        public var track: TrackInfo
        /// See **Sequence** above.
        public var sequence: UInt64
    }

    /// What is heard, for the sequence rule.
    private enum Heard: Equatable, Sendable {
        case track(title: String, artist: String?)
        case `break`
    }

    public var normalizer: TagNormalizer
    public var streamURL: URL?
    /// Names the station goes by besides the stream's icy-name (the configured name, a playlist's
    /// title): a stream title equal to one of them is a placeholder. Kept across resets.
    public var stationNames: [String] = []

    private var streamTitleRaw: String?
    private var streamArtistRaw: String?
    private var statusTitle: NormalizedTitle?
    private var statusTitleSource: TitleSource = .stationAPI
    private var streamStation: String?
    private var statusStation: String?
    private var genre: String?
    private var codec: String?
    private var measuredBitrate: Int?
    private var nominalBitrate: Int?
    private var streamArtworkURL: URL?
    private var statusArtworkURL: URL?
    private var logoURL: URL?
    private var lastReported: TrackInfo.Visible?
    /// The codec of the last report (a change of it is reported, see **Emission**).
    private var reportedCodec: String?
    /// The stream named a real track on this station (so a placeholder title now is a break).
    private var streamHadTitle = false
    private var lastHeard: Heard?
    private var sequence: UInt64 = 0

    public init(streamURL: URL? = nil, normalizer: TagNormalizer = TagNormalizer()) {
        self.streamURL = streamURL
        self.normalizer = normalizer
    }

    /// What is known right now (whether or not it was reported).
    public var current: TrackInfo {
        let streamTitle =
            streamTitleRaw.map { normalizer.normalize(title: $0, artist: streamArtistRaw) }
            ?? streamArtistRaw.map { normalizer.normalize(title: "", artist: $0) }
        let heardStream = streamTitle.flatMap { isPlaceholder($0) ? nil : $0 }
        let isBreak = streamTitle != nil && heardStream == nil && streamHadTitle
        let shown = isBreak ? nil : heardStream ?? statusTitle.flatMap { isPlaceholder($0) ? nil : $0 }
        return TrackInfo(
            title: shown?.title, artist: shown?.artist, rawTitle: shown?.raw,
            station: streamStation ?? statusStation, genre: genre,
            bitrate: nominalBitrate ?? measuredBitrate, codec: codec,
            artworkURL: isBreak ? nil : statusArtworkURL ?? streamArtworkURL, streamURL: streamURL, stationLogoURL: logoURL,
            isBreak: isBreak,
            titleSource: shown == nil ? nil : heardStream != nil ? .stream : statusTitleSource
        )
    }

    /// Merges `tags`; returns the new `TrackInfo` and its sequence if the listener would see a change.
    public mutating func apply(_ tags: TagSet) -> Report? {
        switch tags.origin {
        case .stream:
            if let station = cleaned(tags.station) { streamStation = station }
            if let title = tags.title {
                if title != streamTitleRaw { statusArtworkURL = nil }
                streamTitleRaw = title
                streamArtistRaw = tags.artist
            } else if let artist = tags.artist {
                streamArtistRaw = artist
            }
            if let title = streamTitleRaw, !isPlaceholder(normalizer.normalize(title: title, artist: streamArtistRaw)) {
                streamHadTitle = true
            }
            if let url = tags.artworkURL { streamArtworkURL = url }
        case .statusAPI:
            let title = tags.title.map { normalizer.normalize(title: $0, artist: tags.artist) }
            statusTitle = (title?.isEmpty ?? true) ? nil : title
            statusTitleSource = tags.titleSource
            if let station = cleaned(tags.station) { statusStation = station }
            statusArtworkURL = tags.artworkURL
            if let logo = tags.logoURL { logoURL = logo }
        }
        if let value = cleaned(tags.genre) { genre = value }
        let codecBefore = codec
        if let value = cleaned(tags.codec) { codec = value }
        let codecLearned = codec != codecBefore && codec != reportedCodec
        if let value = tags.bitrate, value > 0 { measuredBitrate = value }
        if let value = tags.nominalBitrate, value > 0 { nominalBitrate = value }

        guard tags.hasVisibleField || codecLearned else { return nil }
        let info = current
        guard info.visible != lastReported || codecLearned else { return nil }
        lastReported = info.visible
        reportedCodec = info.codec
        let heard: Heard? = info.isBreak ? .break : info.title.map { .track(title: $0, artist: info.artist) }
        if let heard, heard != lastHeard {
            sequence += 1
            lastHeard = heard
        }
        return Report(track: info, sequence: sequence)
    }

    /// The listener is now on another station (or another stream URL): the heard track ends. Returns
    /// what is heard now, for the host to publish at once: no title, no station name, codec or
    /// bitrate yet, under a new sequence (see **Another station** above).
    public mutating func changeStation(streamURL: URL?, stationNames: [String]) -> Report {
        reset(keepStation: false)
        self.streamURL = streamURL
        self.stationNames = stationNames
        sequence += 1
        let info = current
        lastReported = info.visible
        reportedCodec = info.codec
        return Report(track: info, sequence: sequence)
    }

    /// Forgets the track for a new connection; see the type documentation.
    public mutating func reset(keepStation: Bool) {
        let station = (streamStation, statusStation, logoURL)
        let heard = (lastReported, lastHeard, streamHadTitle, reportedCodec)
        let (names, sequence) = (stationNames, sequence)
        self = TrackAccumulator(streamURL: streamURL, normalizer: normalizer)
        (stationNames, self.sequence) = (names, sequence)
        if keepStation {
            (streamStation, statusStation, logoURL) = station
            (lastReported, lastHeard, streamHadTitle, reportedCodec) = heard
        }
    }

    /// Whether `title` names no track (see the **Breaks** rule).
    private func isPlaceholder(_ title: NormalizedTitle) -> Bool {
        normalizer.isPlaceholder(title, stationNames: [streamStation, statusStation].compactMap { $0 } + stationNames)
    }

    private func cleaned(_ text: String?) -> String? {
        guard let text else { return nil }
        let value = normalizer.clean(text)
        return value.isEmpty ? nil : value
    }
}
