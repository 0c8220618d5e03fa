import FoundationEssentials
import OtonPluginKit
import PluginAPI
import ShareLogic

/// One share plugin: remembers the current track, answers `share`.
/// Both calls arrive on the host's mailbox for this plugin, never at once.
final class ShareInstance: @unchecked Sendable {
    private let host: HostHandle
    private let settings: ShareSettings
    private var track: TrackFields?
    /// Audio plays (playing or buffering): a station without a title is shared by its name then.
    private var playing = false

    init(host: HostHandle, settings: ShareSettings) {
        self.host = host
        self.settings = settings
    }

    func handle(_ event: EventView.Snapshot) {
        if event.kind == OTON_EVENT_TRACK { track = event.track }
        if event.kind == OTON_EVENT_STATE, let state = event.state?.state { playing = state == "playing" || state == "buffering" }
    }

    /// `share` or `share --format json`.
    func command(_ arguments: [String]) -> (Bool, String) {
        var json = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--format", "-f":
                guard index + 1 < arguments.count, ["json", "text"].contains(arguments[index + 1]) else {
                    return (false, host.tr("--format takes json or text"))
                }
                json = arguments[index + 1] == "json"
                index += 2
            case "--json":
                json = true
                index += 1
            default:
                return (false, host.tr("unknown argument \"{argument}\"; usage: share [--format text|json]", ["argument": arguments[index]]))
            }
        }
        // A song: its text and the services' searches. A station that names no song while it plays: the station.
        guard let track else { return (false, host.tr("Nothing is playing right now: there is no track to share")) }
        let query = ShareLinks.query(artist: track.artist, title: track.title, rawTitle: track.rawTitle)
        guard query != nil || (playing && track.station != nil) else {
            return (false, host.tr("Nothing is playing right now: there is no track to share"))
        }
        let text = settings.template.render([
            "artist": track.artist ?? "", "title": track.title ?? "", "raw_title": track.rawTitle ?? "",
            "station": track.station ?? "", "station_url": track.stationHomepage ?? "",
        ])
        var links: [(String, String)] = []
        if let homepage = track.stationHomepage { links.append(("Station", homepage)) }
        let hasHomepage = !links.isEmpty
        if let query { links += settings.services.map { ($0.name, $0.link(for: query)) } }
        let copiedWith = settings.clipboard ? Clipboard.copy(text) : nil
        host.publish(OTON_EVENT_NAME_SHARE, [(OTON_FIELD_TEXT, text), (OTON_FIELD_LINKS, links.map(\.1).joined(separator: "\n"))])
        if json {
            let object: JSONValue = [
                "text": .string(text),
                "links": .array(links.map { ["name": .string($0.0), "url": .string($0.1)] }),
                "copied_to": .string(copiedWith),
            ]
            return (true, object.jsonText)
        }
        // The text lines (not the JSON above, an API) are in the user's language, the homepage's name too.
        var lines =
            [text, ""]
            + links.enumerated().map { index, link in
                "\(hasHomepage && index == 0 ? host.tr("Station") : link.0): \(link.1)"
            }
        lines.append(
            copiedWith.map { host.tr("(copied to the clipboard with {tool})", ["tool": $0]) }
                ?? host.tr("(no clipboard tool found: copy the text above)"))
        return (true, lines.joined(separator: "\n"))
    }
}
