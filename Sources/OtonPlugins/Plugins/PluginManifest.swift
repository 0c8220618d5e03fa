import PluginAPI

/// Everything a plugin's descriptor declares, copied into Swift values.
/// Reading it never calls the plugin's create().
public struct PluginManifest: Equatable, Sendable {
    public struct Command: Equatable, Sendable {
        public var name: String
        public var usage: String
        public var help: String

        package init(name: String, usage: String, help: String) {
            self.name = name
            self.usage = usage
            self.help = help
        }
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
    /// The keys of its "config" object (ABI 1.6); empty: the plugin checks its config itself.
    public var settings: [PluginSetting]
    /// It has an in-place filter of the sound heard (ABI 1.6 `filter`).
    public var hasFilter: Bool

    package init(
        path: String, id: String, name: String, version: String, description: String, abiMajor: UInt32, abiMinor: UInt32, descriptorSize: Int,
        consumes: [String], mediaTaps: UInt32, commands: [Command], hasOnEvent: Bool, hasOnMedia: Bool, hasOnCommand: Bool, settings: [PluginSetting] = [],
        hasFilter: Bool = false
    ) {
        self.path = path
        self.id = id
        self.name = name
        self.version = version
        self.description = description
        self.abiMajor = abiMajor
        self.abiMinor = abiMinor
        self.descriptorSize = descriptorSize
        self.consumes = consumes
        self.mediaTaps = mediaTaps
        self.commands = commands
        self.hasOnEvent = hasOnEvent
        self.hasOnMedia = hasOnMedia
        self.hasOnCommand = hasOnCommand
        self.settings = settings
        self.hasFilter = hasFilter
    }

    public var abiVersion: String { "\(abiMajor).\(abiMinor)" }

    public var mediaTapNames: [String] {
        var names: [String] = []
        if mediaTaps & OTON_TAP_STREAM != 0 { names.append("stream") }
        if mediaTaps & OTON_TAP_PCM != 0 { names.append("pcm") }
        return names
    }
}
