import Foundation
import OtonEvents
import PluginAPI
import Synchronization

/// A plugin shared library, opened once and never closed, with its
/// descriptor validated: entry symbol, ABI version, required fields.
/// Concurrency: immutable after init; the process-wide table of opened handles is behind its Mutex (`opened`).
public final class PluginLibrary: @unchecked Sendable {
    public static let hostABI = (major: OTON_ABI_MAJOR, minor: OTON_ABI_MINOR)

    public let path: String
    public let manifest: PluginManifest
    /// The descriptor as the plugin declared it, zero-extended to this host's struct size.
    package let descriptor: oton_plugin_descriptor

    /// Handles by real path: a library is dlopen()ed once per process and never unloaded.
    /// Concurrency: immutable; a dlopen handle may be used from any thread (dlsym is thread-safe).
    private struct Handle: @unchecked Sendable { let raw: UnsafeMutableRawPointer }
    private static let opened = Mutex<[String: Handle]>([:])

    /// The size of the ABI 1.0 descriptor: a plugin's descriptor must be at least this.
    public static let minimumDescriptorSize = Int(OTON_DESCRIPTOR_SIZE_1_0)

    /// The size of the descriptor in ABI 1.`abiMinor`: 1.0 to 1.5 the same, 1.6 added the
    /// settings (a minor that appends a field to it adds its size here). A larger struct_size than this is a plugin
    /// built against one header and declaring another's minor.
    public static func descriptorSize(abiMinor: UInt32) -> Int {
        switch abiMinor {
        case 0...5: Int(OTON_DESCRIPTOR_SIZE_1_0)
        default: MemoryLayout<oton_plugin_descriptor>.size
        }
    }

    /// Opens and validates. Does not call create(). `hostABI` is this host's version
    /// (tests pass another to check the rules for older and newer plugins).
    public init(path: String, hostABI: (major: UInt32, minor: UInt32) = PluginLibrary.hostABI) throws(PluginLoadError) {
        // dlopen() searches the system's library path for a name without a slash: never let it.
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        // Nothing opens the file before the walk has checked every step to it (a FIFO would hang).
        let checked = try PluginFileSecurity.check(path)
        let handle = try Self.open(checked, path: path)
        guard let symbol = dlsym(handle, OTON_PLUGIN_ENTRY_SYMBOL) else { throw .missingEntry(path: path) }
        let entry = unsafeBitCast(symbol, to: oton_plugin_entry_fn.self)
        guard let declared = PluginCrashCulprit.insideEntry(path: path, { entry() }) else { throw .nullDescriptor(path: path) }
        let size = ABIStructReader.declaredSize(declared)
        guard size >= Self.minimumDescriptorSize else {
            throw .descriptorTooSmall(path: path, size: size, required: Self.minimumDescriptorSize)
        }
        // Copy what the plugin declared; fields beyond its struct_size stay zero.
        let descriptor = ABIStructReader.zeroExtended(declared, size: size, as: oton_plugin_descriptor.self)
        self.path = path
        self.descriptor = descriptor
        self.manifest = try Self.validate(descriptor, path: path, hostABI: hostABI)
    }

    /// dlopen()s the real path the walk checked, not `/proc/self/fd/N`: a library's `$ORIGIN`
    /// (the RUNPATH SwiftPM gives plugins) must name its real directory. The descriptor opened
    /// with O_NOFOLLOW | O_NONBLOCK proves the inode is still that regular file; the walk proved
    /// that nobody but the user and root can replace it before dlopen opens it again.
    private static func open(_ file: PluginFileSecurity.CheckedFile, path: String) throws(PluginLoadError) -> UnsafeMutableRawPointer {
        let key = file.realPath
        if let handle = opened.withLock({ $0[key] }) { return handle.raw }
        let fd = try PluginFileSecurity.openChecked(file, path: path)
        defer { close(fd) }
        guard let handle = dlopen(file.realPath, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
            throw .openFailed(path: path, reason: reason)
        }
        opened.withLock { $0[key] = Handle(raw: handle) }
        return handle
    }

    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func validate(_ d: oton_plugin_descriptor, path: String, hostABI: (major: UInt32, minor: UInt32)) throws(PluginLoadError) -> PluginManifest {
        let pluginVersion = "\(d.abi_major).\(d.abi_minor)"
        let hostVersion = "\(hostABI.major).\(hostABI.minor)"
        guard d.abi_major == hostABI.major else { throw .majorMismatch(path: path, plugin: pluginVersion, host: hostVersion) }
        guard d.abi_minor <= hostABI.minor else { throw .newerMinor(path: path, plugin: pluginVersion, host: hostVersion) }

        func required(_ pointer: UnsafePointer<CChar>?, _ field: String) throws(PluginLoadError) -> String {
            guard let pointer else { throw .missingField(path: path, field: field) }
            let value = String(cString: pointer)
            guard !value.isEmpty else { throw .missingField(path: path, field: field) }
            return value
        }
        let id = try required(d.id, "id")
        guard EventKindRegistry.isNamespacedName(id) else {
            throw .invalidField(path: path, field: "id", reason: "\"\(id)\" is not a reverse-DNS name such as org.example.logger")
        }
        let name = try required(d.name, "name")
        let version = try required(d.version, "version")
        guard d.create != nil else { throw .missingField(path: path, field: "create") }
        guard d.destroy != nil else { throw .missingField(path: path, field: "destroy") }
        let knownTaps = OTON_TAP_STREAM | OTON_TAP_PCM
        guard d.media_taps & ~knownTaps == 0 else {
            throw .invalidField(path: path, field: "media_taps", reason: "unknown bits 0x\(String(d.media_taps & ~knownTaps, radix: 16))")
        }
        if d.media_taps != 0 && d.on_media == nil {
            throw .missingField(path: path, field: "on_media (it asks for media taps)")
        }
        let commands = try readCommands(d, path: path)
        if !commands.isEmpty && d.on_command == nil {
            throw .missingField(path: path, field: "on_command (it declares commands)")
        }
        let settings = try PluginSettingsReader.read(d, path: path)
        return PluginManifest(
            path: path, id: id, name: name, version: version,
            description: d.description.map { String(cString: $0) } ?? "",
            abiMajor: d.abi_major, abiMinor: d.abi_minor, descriptorSize: Int(d.struct_size),
            consumes: readStringList(d.consumes), mediaTaps: d.media_taps, commands: commands,
            hasOnEvent: d.on_event != nil, hasOnMedia: d.on_media != nil, hasOnCommand: d.on_command != nil,
            settings: settings, hasFilter: d.filter != nil
        )
    }

    /// A NULL-terminated list of strings, at most 256 read.
    package static func readStringList(_ list: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        var out: [String] = []
        var index = 0
        while index < 256, let item = list[index] {
            out.append(String(cString: item))
            index += 1
        }
        return out
    }

    private static func readCommands(_ d: oton_plugin_descriptor, path: String) throws(PluginLoadError) -> [PluginManifest.Command] {
        guard d.command_count > 0 else { return [] }
        guard let base = d.commands else { throw .missingField(path: path, field: "commands (command_count is \(d.command_count))") }
        // Entries are commands[0].struct_size bytes apart: shorter than today's struct when the
        // plugin was built for an older minor, longer when for a newer one.
        let stride = ABIStructReader.declaredSize(base)
        guard stride >= Int(OTON_COMMAND_DECL_SIZE_1_0), stride <= 4096, d.command_count <= 256 else {
            throw .invalidField(
                path: path, field: "commands",
                reason: "struct_size \(stride) (at least \(OTON_COMMAND_DECL_SIZE_1_0)) or count \(d.command_count) (at most 256) is out of range")
        }
        var out: [PluginManifest.Command] = []
        for index in 0..<Int(d.command_count) {
            let decl = ABIStructReader.zeroExtended(UnsafeRawPointer(base).advanced(by: index * stride), size: stride, as: oton_command_decl.self)
            let command = try CommandName.validated(decl, path: path)
            out.append(command)
        }
        return out
    }
}

/// Command names: [a-z0-9-]+, at most 64 characters.
package enum CommandName {
    package static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    package static func validated(_ decl: oton_command_decl, path: String) throws(PluginLoadError) -> PluginManifest.Command {
        guard let namePointer = decl.name else { throw .missingField(path: path, field: "commands[].name") }
        let name = String(cString: namePointer)
        guard isValid(name) else { throw .invalidField(path: path, field: "commands[].name", reason: "\"\(name)\" must be [a-z0-9-]+") }
        return PluginManifest.Command(
            name: name,
            usage: decl.usage.map { String(cString: $0) } ?? name,
            help: decl.help.map { String(cString: $0) } ?? ""
        )
    }
}
