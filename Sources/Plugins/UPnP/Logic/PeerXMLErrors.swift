/// libxml2's parse errors about what a device on the LAN sent (a malformed description, a SOAP
/// reply): each said on one cleaned line (the peer's bytes quoted in it lose their control
/// characters and are cut, see ``PeerText``), and at most ``perWindow`` of them in each window of
/// ``windowSeconds`` — a device announcing itself every second must not fill the log. The lines
/// left out are counted and said with the next one shown.
public struct PeerXMLErrors: Sendable {
    public static let perWindow = 5
    public static let windowSeconds = 60.0

    private var windowStart: Double?
    private var shown = 0
    private var leftOut = 0

    public init() {}

    /// The line to log for an error at `now` (seconds on any monotonic clock), or nil when this
    /// window's lines are spent.
    public mutating func line(for message: String, now: Double) -> String? {
        if windowStart.map({ now - $0 >= Self.windowSeconds }) ?? true {
            windowStart = now
            shown = 0
        }
        guard shown < Self.perWindow else {
            leftOut += 1
            return nil
        }
        shown += 1
        var line = "UPnP: a device on the network sent XML that does not parse: " + PeerText.clean(message, limit: PeerText.messageLimit)
        if leftOut > 0 {
            line += " (\(leftOut) more such errors not shown)"
            leftOut = 0
        }
        return line
    }
}
