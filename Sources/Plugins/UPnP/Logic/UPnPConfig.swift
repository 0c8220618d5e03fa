import OtonJSON

/// Reads the plugin's "config" object: `interface` (the one network interface to search for
/// renderers on, e.g. "eth0" or "lo"; every interface with an IPv4 address when absent) and
/// `timeout_seconds` (how long one SOAP call to a renderer may take, 5 unless given).
public struct UPnPConfig: Sendable, Equatable {
    public static let defaultTimeoutSeconds = 5
    /// A command runs on the plugin's mailbox, which an isolated plugin's parent pings every 2 s and
    /// gives up on after 10 s: every call of one command shares this budget, whatever the timeout.
    public static let commandBudgetSeconds = 8
    public var interface: String?
    public var timeoutSeconds = Self.defaultTimeoutSeconds

    public init() {}

    public static func parse(_ json: String) throws(PluginConfigError) -> UPnPConfig {
        let reader = try PluginConfigReader(json: json, example: #"{"interface": "eth0", "timeout_seconds": 5}"#)
        try reader.refuseUnknownKeys(known: ["interface", "timeout_seconds"], owner: "a UPnP")
        var config = UPnPConfig()
        let interfaceExpected = "an interface name such as \"eth0\" (1 to 15 letters, digits, '.', '-' or '_')"
        if let name = try reader.string("interface", nonEmpty: true, maxCount: 15, expected: interfaceExpected) {
            guard
                name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)) })
            else { throw reader.error("interface", "must be \(interfaceExpected), not \"\(PeerText.clean(name, limit: 32))\"") }
            config.interface = name
        }
        if let seconds = try reader.integer("timeout_seconds", in: 1...commandBudgetSeconds) {
            config.timeoutSeconds = seconds
        }
        return config
    }
}
