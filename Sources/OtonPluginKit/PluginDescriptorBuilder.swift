import PluginAPI

#if canImport(Glibc)
    import Glibc
#endif

/// Builds the constant descriptor a Swift plugin's `oton_plugin_entry` returns.
/// Everything is allocated once and lives for the life of the process, as the
/// contract requires. Keep the result in a global `let`.
public struct PluginDescriptorBuilder {
    public var id: String
    public var name: String
    public var version: String
    public var description: String
    public var consumes: [String]
    public var mediaTaps: UInt32
    public var commands: [(name: String, usage: String, help: String)]
    /// The keys of the plugin's "config" (ABI 1.6): the host checks plugins.json against them before create().
    public var settings: [SettingDeclaration]

    public init(
        id: String, name: String, version: String, description: String = "",
        consumes: [String] = [], mediaTaps: UInt32 = OTON_TAP_NONE,
        commands: [(name: String, usage: String, help: String)] = [], settings: [SettingDeclaration] = []
    ) {
        self.id = id
        self.name = name
        self.version = version
        self.description = description
        self.consumes = consumes
        self.mediaTaps = mediaTaps
        self.commands = commands
        self.settings = settings
    }

    /// Allocates the descriptor with the given callbacks. Never freed.
    public func build(
        create: @escaping @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> UnsafeMutableRawPointer?,
        destroy: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
        onEvent: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<oton_event>?) -> Void)? = nil,
        onMedia: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<oton_media_buffer>?) -> Void)? = nil,
        onCommand: (
            @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, oton_reply_fn?, UnsafeMutableRawPointer?) -> oton_status
        )? = nil
    ) -> UnsafePointer<oton_plugin_descriptor> {
        func permanent(_ string: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(string)!) }

        var consumesList: UnsafePointer<UnsafePointer<CChar>?>?
        if !consumes.isEmpty {
            let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: consumes.count + 1)
            for (index, kind) in consumes.enumerated() { list[index] = permanent(kind) }
            list[consumes.count] = nil
            consumesList = UnsafePointer(list)
        }
        var commandList: UnsafePointer<oton_command_decl>?
        if !commands.isEmpty {
            let list = UnsafeMutablePointer<oton_command_decl>.allocate(capacity: commands.count)
            for (index, command) in commands.enumerated() {
                list[index] = oton_command_decl(
                    struct_size: UInt32(MemoryLayout<oton_command_decl>.size), reserved: 0,
                    name: permanent(command.name), usage: permanent(command.usage), help: permanent(command.help))
            }
            commandList = UnsafePointer(list)
        }
        var settingList: UnsafePointer<oton_setting_decl>?
        if !settings.isEmpty {
            let list = UnsafeMutablePointer<oton_setting_decl>.allocate(capacity: settings.count)
            for (index, setting) in settings.enumerated() { list[index] = setting.declaration(permanent) }
            settingList = UnsafePointer(list)
        }
        let descriptor = UnsafeMutablePointer<oton_plugin_descriptor>.allocate(capacity: 1)
        descriptor.initialize(
            to: oton_plugin_descriptor(
                struct_size: UInt32(MemoryLayout<oton_plugin_descriptor>.size),
                abi_major: OTON_ABI_MAJOR, abi_minor: OTON_ABI_MINOR, media_taps: mediaTaps,
                id: permanent(id), name: permanent(name), version: permanent(version),
                description: permanent(description), consumes: consumesList,
                commands: commandList, command_count: UInt32(commands.count), reserved: 0,
                create: create, destroy: destroy, on_event: onEvent, on_media: onMedia, on_command: onCommand,
                settings: settingList, setting_count: UInt32(settings.count), reserved2: 0, filter: nil))
        return UnsafePointer(descriptor)
    }
}

/// Writes a message into the host's create() error buffer, truncated to fit.
public func writeCreateError(_ message: String, into buffer: UnsafeMutablePointer<CChar>?, size: Int) {
    guard let buffer, size > 0 else { return }
    let bytes = Array(message.utf8.prefix(size - 1))
    for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
    buffer[bytes.count] = 0
}
