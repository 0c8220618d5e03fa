import Foundation

/// One request line: `{"command": ["volume", "30"], "id": 7}` (or `"command": "status"`
/// with `"args": [...]`). `id` is any JSON value and is echoed in the reply.
struct ControlRequest {
    var id: Any?
    var name: String
    var arguments: [String]

    struct Invalid: Error, @unchecked Sendable { // `id` is the request's own JSON value, read-only
        let id: Any?
        let message: String
    }

    static func parse(_ line: Data) throws(Invalid) -> ControlRequest {
        guard let object = try? JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed]) else {
            throw Invalid(id: nil, message: "not valid JSON; send one JSON object per line, e.g. {\"command\": [\"status\"]}")
        }
        guard let request = object as? [String: Any] else {
            throw Invalid(id: nil, message: "a request must be a JSON object with \"command\"")
        }
        let id = request["id"]
        var words: [String]
        switch request["command"] {
        case let name as String:
            words = [name]
        case let list as [Any]:
            guard !list.isEmpty, list.allSatisfy({ $0 is String || $0 is NSNumber }) else {
                throw Invalid(id: id, message: "\"command\" must be a non-empty array of strings")
            }
            words = list.map { "\($0)" }
        case nil:
            throw Invalid(id: id, message: "\"command\" is missing; e.g. {\"command\": [\"status\"]}")
        default:
            throw Invalid(id: id, message: "\"command\" must be a string or a non-empty array of strings")
        }
        if let extra = request["args"] {
            guard let list = extra as? [Any], list.allSatisfy({ $0 is String || $0 is NSNumber }) else {
                throw Invalid(id: id, message: "\"args\" must be an array of strings")
            }
            words += list.map { "\($0)" }
        }
        return ControlRequest(id: id, name: words[0], arguments: Array(words.dropFirst()))
    }
}

/// One reply line: `{"id": 7, "ok": true, "text": "…", "data": {…}}` or `{"id": 7, "ok": false, "error": "…"}`.
struct ControlReply {
    var ok: Bool
    var text: String
    var data: [String: Any]?

    static func success(_ text: String, data: [String: Any]? = nil) -> ControlReply { ControlReply(ok: true, text: text, data: data) }
    static func failure(_ message: String) -> ControlReply { ControlReply(ok: false, text: message) }

    func line(id: Any?) -> Data {
        var object: [String: Any] = ["id": id ?? NSNull(), "ok": ok]
        if ok {
            object["text"] = text
            if let data { object["data"] = data }
        } else {
            object["error"] = text
        }
        var bytes = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"ok":false,"error":"reply could not be encoded"}"#.utf8)
        bytes.append(0x0A)
        return bytes
    }
}
