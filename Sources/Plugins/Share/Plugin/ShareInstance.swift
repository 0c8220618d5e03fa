import FoundationEssentials
import OtonPluginKit
import PluginAPI
import ShareLogic

/// One share plugin: remembers the current track, answers `share`.
/// Both calls arrive on the host's mailbox for this plugin, never at once.
final class ShareInstance: @unchecked Sendable {
    private let host: HostHandle
    private let settings: ShareSettings
    private var track: [String: String] = [:]

    init(host: HostHandle, settings: ShareSettings) {
        self.host = host
        self.settings = settings
    }

    func remember(_ event: EventView.Snapshot) {
        if event.kind == OTON_EVENT_TRACK { track = event.fields }
    }

    /// `share` or `share --format json`.
    func command(_ arguments: [String]) -> (Bool, String) {
        var json = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--format", "-f":
                guard index + 1 < arguments.count, ["json", "text"].contains(arguments[index + 1]) else {
                    return (false, "--format takes json or text")
                }
                json = arguments[index + 1] == "json"
                index += 2
            case "--json":
                json = true
                index += 1
            default:
                return (false, "unknown argument \"\(arguments[index])\"; usage: share [--format text|json]")
            }
        }
        guard let query = ShareLinks.query(artist: track["artist"], title: track["title"], rawTitle: track["raw_title"]) else {
            return (false, "Nothing is playing right now: there is no track to share")
        }
        let text = settings.template.render([
            "artist": track["artist"] ?? "", "title": track["title"] ?? "", "raw_title": track["raw_title"] ?? "",
            "station": track["station"] ?? "", "station_url": track["station_homepage"] ?? "",
        ])
        var links: [(String, String)] = []
        if let homepage = track["station_homepage"], !homepage.isEmpty { links.append(("Station", homepage)) }
        links += settings.services.map { ($0.name, $0.link(for: query)) }
        let copiedWith = settings.clipboard ? Clipboard.copy(text) : nil
        host.publish(OTON_EVENT_NAME_SHARE, [("text", text), ("links", links.map(\.1).joined(separator: "\n"))])
        if json {
            let object: JSONValue = [
                "text": .string(text),
                "links": .array(links.map { ["name": .string($0.0), "url": .string($0.1)] }),
                "copied_to": .string(copiedWith),
            ]
            return (true, object.jsonText)
        }
        var lines = [text, ""] + links.map { "\($0.0): \($0.1)" }
        lines.append(copiedWith.map { "(copied to the clipboard with \($0))" } ?? "(no clipboard tool found: copy the text above)")
        return (true, lines.joined(separator: "\n"))
    }
}
