import Foundation
import OtonEvents
import OtonJSON
import PluginAPI

/// What `oton plugins run` feeds a plugin, one JSON object a line: an event as `--events` and
/// `oton ctl subscribe` print it (`{"kind": "track", "fields": {"title": "…"}}`, or wrapped in
/// `{"event": {…}}`), a command (`{"command": "logger-stats", "args": ["reset"]}`), or the audio of
/// `--audio` at that point (`{"audio": true}`). Blank lines and lines starting with `#` are skipped,
/// and so is the greeting of `oton ctl subscribe` (`{"ok": true, "subscribed": true, …}`): a saved
/// capture is a script as it is.
package enum PluginScriptStep {
    case event(BusEvent)
    case command(name: String, arguments: [String])
    case audio

    /// At most this many steps and bytes a script: a script is the author's, but still bounded.
    package static let maximumSteps = 100_000
    package static let maximumBytes = 16 << 20

    /// The steps of `text`, or the first line that is not one, with its number and what is wrong.
    package static func parse(_ text: String, registry: EventKindRegistry) throws(ValidationFailure) -> [PluginScriptStep] {
        var steps: [PluginScriptStep] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            func refuse(_ reason: String) -> ValidationFailure { ValidationFailure(reason: "line \(index + 1): \(reason)") }
            guard steps.count < maximumSteps else { throw refuse("more than \(maximumSteps) steps") }
            let value: JSONValue
            do { value = try JSONParser(maxBytes: 1 << 20).parse(Data(line.utf8)) } catch { throw refuse("not JSON: \(error)") }
            guard case let .object(object) = value else { throw refuse("give a JSON object: an event, a command or {\"audio\": true}") }
            if ControlReply.isSubscribed(object) { continue }
            if object["audio"]?.boolValue == true {
                steps.append(.audio)
            } else if let name = object["command"]?.stringValue {
                let arguments = object["args"]?.arrayValue ?? []
                let strings = arguments.compactMap(\.stringValue)
                guard strings.count == arguments.count else { throw refuse("\"args\" must be a list of strings") }
                steps.append(.command(name: name, arguments: strings))
            } else if let event = object["event"]?.objectValue ?? (object["kind"] != nil ? object : nil) {
                guard let name = event["kind"]?.stringValue, let kind = registry.kind(for: name) else {
                    throw refuse("\"kind\" must name an event kind: track, state, volume or a reverse-DNS name")
                }
                var fields: [(key: String, value: String)] = []
                for (key, field) in (event["fields"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                    switch field {
                    case let .string(text): fields.append((key, text))
                    case let .number(number): fields.append((key, number.description))
                    case let .bool(flag): fields.append((key, flag ? "1" : "0"))
                    default: throw refuse("field \"\(key)\" must be text, a number or true/false")
                    }
                }
                let payloadKeys = BusEvent.Payload.keys(of: kind)
                steps.append(
                    .event(
                        BusEvent(
                            kind: kind, name: name, source: event["source"]?.stringValue ?? "host",
                            payload: BusEvent.Payload(kind: kind, fields: fields),
                            extraFields: fields.filter { !payloadKeys.contains($0.key) })))
            } else {
                throw refuse("give an event ({\"kind\": …, \"fields\": {…}}), a command ({\"command\": …, \"args\": […]}) or {\"audio\": true}")
            }
        }
        return steps
    }
}
