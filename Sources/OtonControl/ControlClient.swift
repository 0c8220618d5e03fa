import Foundation
import OtonJSON
import OtonSupport

/// The client side of the control socket, for `oton ctl`.
public final class ControlClient {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let fd: Int32
    private var reader: LineReader

    /// Connects to `instance`, or to the only running instance when nil.
    public init(instance: String?) throws(Failure) {
        let path: String
        if let instance {
            path = ControlSocketPath.socket(instance: instance)
        } else {
            let live = ControlSocketPath.instances().filter { UnixSocket.isLive(ControlSocketPath.socket(instance: $0)) }
            switch live.count {
            case 0: throw Failure(description: tr("no running oton found in {folder}; start one with `oton play`", ["folder": ControlSocketPath.directory()]))
            case 1: path = ControlSocketPath.socket(instance: live[0])
            default:
                throw Failure(description: tr("several oton instances run ({instances}); pass --instance NAME", ["instances": live.joined(separator: ", ")]))
            }
        }
        do {
            fd = try UnixSocket.connect(to: path)
        } catch {
            if error.nobodyListens, let instance {
                throw Failure(
                    description: tr(
                        "no oton is running as instance \"{instance}\" (nothing listens at {path}); start one with `oton play --instance {instance}`",
                        ["instance": instance, "path": path]))
            }
            throw Failure(description: tr("cannot reach oton at {path}: {reason}", ["path": path, "reason": "\(error)"]))
        }
        reader = LineReader(fd: fd, limit: Self.maximumLineBytes)
    }

    /// The longest reply or event line read.
    public static let maximumLineBytes = 16 << 20

    deinit { close(fd) }

    /// Makes reads give up after `seconds` (then nextObject throws, nextLine returns nil).
    public func setTimeout(seconds: Int) {
        UnixSocket.setReceiveTimeout(fd, seconds: seconds)
    }

    /// Sends one request and returns the reply object.
    public func send(_ words: [String], id: Int = 1) throws(Failure) -> [String: JSONValue] {
        try write(words, id: id)
        return try nextObject()
    }

    /// Sends one request without waiting for the reply.
    public func write(_ words: [String], id: Int = 1) throws(Failure) {
        let request: JSONValue = ["id": .int(id), "command": .strings(words)]
        let data = Data((request.jsonText + "\n").utf8)
        guard UnixSocket.writeAll(fd, data) else { throw Failure(description: tr("oton closed the connection")) }
    }

    /// The next line from oton as a JSON object (replies, or events after `subscribe`).
    public func nextObject() throws(Failure) -> [String: JSONValue] {
        switch reader.next() {
        case let .line(line):
            guard let object = (try? JSONValue.parse(line, maxBytes: Self.maximumLineBytes))?.objectValue else {
                throw Failure(description: tr("unreadable reply: {reply}", ["reply": String(decoding: line.prefix(200), as: UTF8.self)]))
            }
            return object
        case .tooLong: throw Failure(description: tr("reply too long"))
        case .closed, .timedOut: throw Failure(description: tr("oton closed the connection"))
        }
    }

    /// The raw next line (for `--json` and subscriptions), nil at the end.
    public func nextLine() -> String? {
        if case let .line(line) = reader.next() { return String(decoding: line, as: UTF8.self) }
        return nil
    }
}
