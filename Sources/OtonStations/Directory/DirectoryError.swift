import Foundation
import OtonHTTP

/// Why the station directory gave no usable answer. Each says what happened and what to do.
public enum DirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server did not answer, answered with an error status, or too slowly.
    case unreachable(server: String, reason: CappedHTTPClient.Failure)
    /// The answer was not JSON, or not the array of stations the API documents.
    case unreadable(server: String, reason: String)
    /// No server was given and none could be found through DNS.
    case noServer(reason: String)
    /// No server was given, and the directory's DNS name does not resolve: no network (or no DNS).
    case noNetwork(lookup: String)
    /// `--server` (or `directory_server`) is not an http(s) URL.
    case badServer(String)

    public var description: String {
        switch self {
        case let .unreachable(server, .hostNotFound(detail)):
            return
                "the station directory at \(server) cannot be reached: there seems to be no network (\(detail))\n  hint: check the network connection, then try again"
        case let .unreachable(server, reason):
            let what =
                switch reason {
                case .timedOut: "did not answer in time (\(reason))"
                case .http: "answered \(reason)"
                case .tooLarge: "sent too much: \(reason), far more than any search answer"
                default: "could not be reached: \(reason)"
                }
            return
                "the station directory at \(server) \(what)\n  hint: try again later, or another server with --server URL (for example \(Self.example(besides: server)))"
        case let .unreadable(server, reason):
            return
                "the station directory at \(server) sent an answer oton cannot read: \(reason)\n  hint: is it a Radio Browser server? try another with --server URL"
        case let .noNetwork(lookup):
            return "the station directory cannot be reached: there seems to be no network (\(lookup))\n  hint: check the network connection, then try again"
        case let .noServer(reason):
            return
                "no station directory server found: \(reason)\n  hint: pass --server https://de1.api.radio-browser.info, or set \"directory_server\" in plugins.json"
        case let .badServer(text):
            return "\"\(text)\" is not a directory server URL\n  hint: give an http:// or https:// URL such as https://de1.api.radio-browser.info"
        }
    }

    /// A mistake in what was typed or configured (exit 2), rather than a directory that could not be
    /// reached or read (exit 1, as `oton --help` and the README say).
    public var isUsageError: Bool {
        if case .badServer = self { return true }
        return false
    }

    /// A Radio Browser server to suggest: never the one that just failed.
    package static func example(besides failed: String) -> String {
        let host = URL(string: failed)?.host?.lowercased()
        return examples.first { URL(string: $0)?.host != host } ?? examples[0]
    }

    package static let examples = ["https://de1.api.radio-browser.info", "https://fi1.api.radio-browser.info"]
}
