import OtonPluginKit
import PluginAPI

/// The state behind the MPRIS object and the notifications, fed by bus events.
/// Each `apply…` returns what must be told to the desktop: the Player
/// properties that changed and, on a track change, a notification to show.
public struct NowPlayingModel: Sendable {
    public struct Notification: Equatable, Sendable {
        public var summary: String
        public var body: String
        public var imagePath: String?

        public init(summary: String, body: String, imagePath: String?) {
            self.summary = summary
            self.body = body
            self.imagePath = imagePath
        }
    }

    public struct Changes: Equatable, Sendable {
        /// Names of org.mpris.MediaPlayer2.Player properties whose value changed.
        public var properties: [String] = []
        public var notification: Notification?

        public var isEmpty: Bool { properties.isEmpty && notification == nil }
    }

    public static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    public private(set) var status: PlaybackStatus = .stopped
    public private(set) var track: TrackFields?
    /// The artwork file for the current track, once the artwork plugin announced it.
    public private(set) var artworkPath: String?
    public private(set) var volume: Double = 1.0
    /// The UPnP renderer the station is cast to (`org.oton.cast.state`), and the words that say so.
    public private(set) var castRenderer: String?
    private var castComment: String?
    /// Next/Previous switch stations: possible when the player has more than one.
    public var canSwitchStations: Bool { (track?.stationCount ?? 1) > 1 }
    private let announcer: TrackAnnouncer
    private let notificationsEnabled: Bool
    /// The track sequence last announced, and whether that announcement already had its image.
    private var announcedSequence: UInt64?
    private var announcedWithImage = false

    public init(announcer: TrackAnnouncer = TrackAnnouncer(), notifications: Bool = true) {
        self.announcer = announcer
        notificationsEnabled = notifications
    }

    /// mpris:trackid: a new object path for each track.
    public var trackID: String {
        guard let track, track.sequence > 0 else { return Self.noTrack }
        return "/org/oton/track/\(track.sequence)"
    }

    /// The Metadata dictionary, in a stable order.
    public var metadata: [(key: String, value: MetadataValue)] {
        var out: [(key: String, value: MetadataValue)] = [("mpris:trackid", .objectPath(trackID))]
        guard let track else { return out }
        if let title = track.title { out.append(("xesam:title", .string(title))) }
        if let artist = track.artist { out.append(("xesam:artist", .strings([artist]))) }
        if let station = track.station { out.append(("xesam:album", .string(station))) }
        if let url = track.streamURL { out.append(("xesam:url", .string(url))) }
        if let artworkPath { out.append(("mpris:artUrl", .string(FileURI.make(path: artworkPath)))) }
        if let castComment { out.append(("xesam:comment", .strings([castComment]))) }
        // Where the title came from (title_source: stream, station-api, provider:<rule>, recognised), under
        // oton's own namespace as the MPRIS spec asks of keys it does not define: clients show the keys
        // they know and pass the rest on (playerctl metadata prints it).
        if track.title != nil, let source = track.titleSource { out.append(("oton:titleSource", .string(source))) }
        return out
    }

    public mutating func applyTrack(_ new: TrackFields) -> Changes {
        var changes = Changes()
        let isNewTrack = new.sequence != track?.sequence
        if isNewTrack { artworkPath = nil }
        if new != track {
            let couldSwitch = canSwitchStations
            track = new
            changes.properties.append("Metadata")
            if canSwitchStations != couldSwitch { changes.properties += ["CanGoNext", "CanGoPrevious"] }
        }
        if notificationsEnabled, announcedSequence != new.sequence, announcer.shouldAnnounce(new) {
            announcedSequence = new.sequence
            announcedWithImage = artworkPath != nil
            changes.notification = notification(for: new)
        }
        return changes
    }

    /// Casting started (`renderer` and the `comment` that says so, e.g. "Casting to Living Room")
    /// or ended (nil): shown as the track's xesam:comment, a standard Metadata key players show
    /// beside the title, while PlaybackStatus keeps saying what oton itself plays (Paused).
    public mutating func applyCast(renderer: String?, comment: String?) -> Changes {
        let comment = renderer == nil ? nil : comment
        guard renderer != castRenderer || comment != castComment else { return Changes() }
        castRenderer = renderer
        castComment = comment
        return Changes(properties: ["Metadata"])
    }

    public mutating func applyState(_ status: PlaybackStatus) -> Changes {
        guard status != self.status else { return Changes() }
        self.status = status
        return Changes(properties: ["PlaybackStatus"])
    }

    public mutating func applyVolume(_ volume: Double) -> Changes {
        guard volume.isFinite, volume != self.volume else { return Changes() }
        self.volume = volume
        return Changes(properties: ["Volume"])
    }

    /// An `org.oton.artwork.ready` event: `path`, `title` and, from the bundled
    /// artwork plugin, `sequence`. Artwork for another track is ignored.
    public mutating func applyArtwork(fields: [String: String]) -> Changes {
        guard let track, let path = fields[OTON_FIELD_PATH], !path.isEmpty else { return Changes() }
        if let sequence = fields[OTON_FIELD_SEQUENCE].flatMap(UInt64.init) {
            guard sequence == track.sequence else { return Changes() }
        } else if let title = fields[OTON_FIELD_TITLE], title != track.title {
            return Changes()
        }
        guard path != artworkPath else { return Changes() }
        artworkPath = path
        var changes = Changes(properties: ["Metadata"])
        // The notification shown without the cover is replaced by one with it.
        if announcedSequence == track.sequence, !announcedWithImage {
            announcedWithImage = true
            changes.notification = notification(for: track)
        }
        return changes
    }

    private func notification(for track: TrackFields) -> Notification {
        let body = [track.artist, track.station].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " — ")
        return Notification(summary: track.title ?? "", body: body, imagePath: artworkPath)
    }
}
