import OtonJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The lines the plugin and the stream's control script exchange: snapserver 0.26's stream plugin
/// protocol (JSON-RPC 2.0, one object a line), which the script relays between snapserver's pipes
/// and the plugin's socket, plus the one line the script adds first, `Oton.Stream`, naming the
/// stream snapserver started it for (its `--stream=` argument).
public enum ControlScriptProtocol {
    /// The longest line read from the script; a longer one ends its connection.
    public static let maximumLineBytes = 16 * 1024

    public static var readyLine: String { #"{"jsonrpc":"2.0","method":"Plugin.Stream.Ready"}"# }

    /// A `Plugin.Stream.Player.Properties` notification: snapserver stores these as the stream's
    /// properties, which `Server.GetStatus` and every Snapcast client show.
    public static func propertiesLine(_ properties: StreamProperties) -> String {
        JSONValue.object(["jsonrpc": .string("2.0"), "method": .string("Plugin.Stream.Player.Properties"), "params": properties.json]).jsonText
    }

    /// What a line from the script is.
    public enum Incoming: Equatable, Sendable {
        /// The script's first line: the stream it serves.
        case stream(String)
        /// A request from snapserver that needs this reply line.
        case request(reply: String)
        /// A notification or a reply: nothing to answer.
        case ignored
        /// Not JSON-RPC at all.
        case invalid(String)
    }

    public static func read(_ line: String, properties: StreamProperties) -> Incoming {
        guard let value = try? JSONValue.parse(Data(line.utf8), maxBytes: maximumLineBytes), case let .object(members) = value else {
            return .invalid("a line that is not a JSON object")
        }
        guard let method = members["method"]?.stringValue else { return .ignored }
        if method == "Oton.Stream" {
            guard let name = members["params"]?["stream"]?.stringValue else { return .invalid("Oton.Stream without params.stream") }
            return .stream(name)
        }
        guard let id = members["id"], id != .null else { return .ignored }
        let reply: JSONValue
        switch method {
        case "Plugin.Stream.Player.GetProperties":
            reply = .object(["jsonrpc": .string("2.0"), "id": id, "result": properties.json])
        default:
            // Control, SetProperty: a radio stream cannot be paused or skipped from Snapcast.
            reply = .object([
                "jsonrpc": .string("2.0"), "id": id,
                "error": .object(["code": .number(-32601), "message": .string("oton's stream takes no control: \(method)")]),
            ])
        }
        return .request(reply: reply.jsonText)
    }
}

/// Splits bytes into lines ("\n", a "\r" before it removed), refusing a line longer than `limit`.
public struct LineSplitter: Sendable {
    public let limit: Int
    private var pending: [UInt8] = []

    public init(limit: Int) {
        self.limit = limit
    }

    public struct TooLong: Error {}

    public mutating func feed(_ bytes: some Collection<UInt8>) throws(TooLong) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                lines.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
            } else {
                guard pending.count < limit else { throw TooLong() }
                pending.append(byte)
            }
        }
        return lines
    }
}
