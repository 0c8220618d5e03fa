import PluginAPI

/// Everything a plugin's descriptor declares, copied into Swift values.
/// Reading it never calls the plugin's create().
public struct PluginManifest: Equatable, Sendable {
    public struct Command: Equatable, Sendable {
        public var name: String
        public var usage: String
        public var help: String
    }

    public var path: String
    public var id: String
    public var name: String
    public var version: String
    public var description: String
    public var abiMajor: UInt32
    public var abiMinor: UInt32
    public var descriptorSize: Int
    /// Event kind names it consumes ("*" for all).
    public var consumes: [String]
    /// OTON_TAP_* bits.
    public var mediaTaps: UInt32
    public var commands: [Command]
    public var hasOnEvent: Bool
    public var hasOnMedia: Bool
    public var hasOnCommand: Bool

    public var abiVersion: String { "\(abiMajor).\(abiMinor)" }

    public var mediaTapNames: [String] {
        var names: [String] = []
        if mediaTaps & OTON_TAP_STREAM != 0 { names.append("stream") }
        if mediaTaps & OTON_TAP_PCM != 0 { names.append("pcm") }
        return names
    }
}
