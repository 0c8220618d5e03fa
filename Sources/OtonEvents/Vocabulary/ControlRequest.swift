import Foundation
import OtonJSON

/// One request line: `{"command": ["volume", "30"], "id": 7}` (or `"command": "status"`
/// with `"args": [...]`). `id` is any JSON value and is echoed in the reply. Numbers among the
/// words are taken as written (`["volume", 30]` is "volume 30").
package struct ControlRequest: Sendable {
    /// The longest request line the control socket reads.
    package static let maximumLineBytes = 64 * 1024

    package var id: JSONValue?
    package var name: String
    package var arguments: [String]

    package init(id: JSONValue?, name: String, arguments: [String]) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    package struct Invalid: Error, Sendable {
        package let id: JSONValue?
        package let message: String
    }

    package static func parse(_ line: Data) throws(Invalid) -> ControlRequest {
        let request: JSONValue
        do {
            request = try JSONParser(maxBytes: ControlRequest.maximumLineBytes).parse(line)
        } catch {
            throw Invalid(
                id: nil, message: "not valid JSON at column \(error.column): \(error.reason); send one JSON object per line, e.g. {\"command\": [\"status\"]}")
        }
        guard case let .object(members) = request else {
            throw Invalid(id: nil, message: "a request must be a JSON object with \"command\"")
        }
        let id = members["id"]
        var words: [String]
        switch members["command"] {
        case let .string(name)?:
            words = [name]
        case let .array(list)?:
            guard !list.isEmpty, let texts = Self.textWords(list) else {
                throw Invalid(id: id, message: "\"command\" must be a non-empty array of strings")
            }
            words = texts
        case nil:
            throw Invalid(id: id, message: "\"command\" is missing; e.g. {\"command\": [\"status\"]}")
        default:
            throw Invalid(id: id, message: "\"command\" must be a string or a non-empty array of strings")
        }
        if let extra = members["args"] {
            guard case let .array(list) = extra, let texts = Self.textWords(list) else {
                throw Invalid(id: id, message: "\"args\" must be an array of strings")
            }
            words += texts
        }
        return ControlRequest(id: id, name: words[0], arguments: Array(words.dropFirst()))
    }

    /// Strings as they are, numbers as written; nil if anything else is in the list.
    private static func textWords(_ list: [JSONValue]) -> [String]? {
        var out: [String] = []
        for item in list {
            switch item {
            case .string, .number: out.append(item.text!)
            default: return nil
            }
        }
        return out
    }
}

/// One reply line: `{"id": 7, "ok": true, "text": "…", "data": {…}}` or `{"id": 7, "ok": false, "error": "…"}`.
package struct ControlReply {
    package var ok: Bool
    package var text: String
    package var data: [String: JSONValue]?

    package init(ok: Bool, text: String, data: [String: JSONValue]? = nil) {
        self.ok = ok
        self.text = text
        self.data = data
    }

    package static func success(_ text: String, data: [String: JSONValue]? = nil) -> ControlReply { ControlReply(ok: true, text: text, data: data) }
    package static func failure(_ message: String) -> ControlReply { ControlReply(ok: false, text: message) }

    /// The reply to `subscribe`, the first line of its stream: a success with `"subscribed": true`,
    /// so that a saved stream (`oton ctl subscribe > FILE`) is JSON lines throughout and a reader
    /// of events, such as `oton plugins run`, knows this line for what it is (``isSubscribed(_:)``).
    package static func subscribedLine(id: JSONValue?) -> Data {
        success("subscribed").line(id: id, extra: ["subscribed": .bool(true)])
    }

    /// Whether a line's object is the greeting of a `subscribe` stream (``subscribedLine(id:)``).
    package static func isSubscribed(_ object: [String: JSONValue]) -> Bool {
        object["subscribed"]?.boolValue == true && object["ok"]?.boolValue == true
    }

    /// The request's `id` is echoed as its own JSON text first, so that a number such as
    /// 12345678901234567890 comes back unchanged; nil becomes null.
    package func line(id: JSONValue?) -> Data {
        line(id: id, extra: [:])
    }

    /// `extra`: members besides `ok`, `text`, `data` and `error`.
    private func line(id: JSONValue?, extra: [String: JSONValue]) -> Data {
        var object: [String: JSONValue] = extra
        object["ok"] = .bool(ok)
        if ok {
            object["text"] = .string(text)
            if let data { object["data"] = .object(data) }
        } else {
            object["error"] = .string(text)
        }
        let body = JSONValue.object(object).jsonText
        return Data(("{\"id\":" + (id?.jsonText ?? "null") + "," + body.dropFirst() + "\n").utf8)
    }
}
