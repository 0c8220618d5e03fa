/// A renderer found on the network, as `cast list` shows it: every text cleaned (``PeerText``).
public struct RendererEntry: Sendable, Equatable {
    /// The device's UDN ("uuid:…"), its identity.
    public var udn: String
    public var name: String
    public var model: String
    /// The host and port of its description URL.
    public var address: String

    public init(udn: String, name: String, model: String, address: String) {
        self.udn = udn
        self.name = name
        self.model = model
        self.address = address
    }

    /// At most this many renderers are kept; later ones are ignored (a flood of announcements
    /// costs no more memory than this).
    public static let limit = 64

    /// The renderer a user named: its name (any case) or its UDN; nil when none or several match.
    public static func find(_ wanted: String, in entries: [RendererEntry]) -> Lookup {
        let folded = wanted.lowercased()
        let matches = entries.filter { $0.name.lowercased() == folded || $0.udn.lowercased() == folded }
        switch matches.count {
        case 0: return .none
        case 1: return .found(matches[0])
        default: return .ambiguous(matches)
        }
    }

    public enum Lookup: Sendable, Equatable {
        case found(RendererEntry)
        case none
        case ambiguous([RendererEntry])
    }

    /// "host:port" of a description URL (the renderer's address as `cast list` shows it).
    public static func address(ofLocation location: String) -> String {
        let parts = location.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // "http:", "", "host:port", "path…"
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return PeerText.clean(location, limit: 64) }
        return PeerText.clean(String(parts[2]), limit: 64)
    }
}
