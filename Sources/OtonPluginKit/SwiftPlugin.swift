import FoundationEssentials
import PluginAPI

/// What a Swift plugin instance implements. The kit supplies the C entry
/// points around it (create, destroy, on_event, on_media, on_command), so a
/// plugin is its descriptor, a factory and this protocol. Every method is
/// called on the host's mailbox for this instance, one call at a time.
public protocol SwiftPluginInstance: AnyObject {
    /// An event of a kind the descriptor consumes.
    func receive(_ event: EventView.Snapshot)
    /// A media buffer (borrowed: copy what you keep).
    func receive(media: UnsafePointer<oton_media_buffer>)
    /// A control command the descriptor declared (or registered); the reply text and success.
    func command(_ name: String, _ arguments: [String]) -> (Bool, String)
    /// The same, for a reply written in pieces as it is made (a long listing): `reply` may be
    /// called many times, the pieces are concatenated. By default, the one-piece `command`.
    func command(_ name: String, _ arguments: [String], reply: (String) -> Void) -> Bool
    /// The last call: stop own threads, release everything.
    func shutdown()
}

public extension SwiftPluginInstance {
    func receive(_ event: EventView.Snapshot) {}
    func receive(media: UnsafePointer<oton_media_buffer>) {}
    func command(_ name: String, _ arguments: [String]) -> (Bool, String) { (false, "\(name) is not supported") }
    func command(_ name: String, _ arguments: [String], reply: (String) -> Void) -> Bool {
        let (ok, text) = command(name, arguments)
        reply(text)
        return ok
    }
    func shutdown() {}
}

/// Makes the instance from the host table and the plugin's config JSON; a thrown error's
/// description becomes create()'s reason.
public typealias SwiftPluginFactory = (_ host: HostHandle, _ configJSON: String) throws -> any SwiftPluginInstance

public extension PluginDescriptorBuilder {
    /// The descriptor with the kit's C glue around `factory`. A library holds one plugin,
    /// so one factory; keep the result in a global `let` that `oton_plugin_entry` returns.
    func build(factory: @escaping SwiftPluginFactory) -> UnsafePointer<oton_plugin_descriptor> {
        SwiftPluginGlue.factory = factory
        return build(
            create: SwiftPluginGlue.create,
            destroy: SwiftPluginGlue.destroy,
            onEvent: consumes.isEmpty ? nil : SwiftPluginGlue.onEvent,
            onMedia: mediaTaps == OTON_TAP_NONE ? nil : SwiftPluginGlue.onMedia,
            onCommand: commands.isEmpty ? nil : SwiftPluginGlue.onCommand
        )
    }
}

/// The C entry points. Nothing unwinds across them: errors become statuses and messages.
enum SwiftPluginGlue {
    /// Concurrency: written once, when the library's entry point first runs (the host calls it once, on
    /// the main thread, before any create()), and only read after.
    nonisolated(unsafe) static var factory: SwiftPluginFactory?

    /// Holds the instance behind the opaque pointer the host keeps.
    final class Box {
        let instance: any SwiftPluginInstance
        init(_ instance: any SwiftPluginInstance) { self.instance = instance }
    }

    static func instance(_ pointer: UnsafeMutableRawPointer) -> any SwiftPluginInstance {
        Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue().instance
    }

    static let create: @convention(c) (UnsafePointer<oton_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> UnsafeMutableRawPointer? = {
        host, config, errorBuffer, errorSize in
        guard let host, let factory = SwiftPluginGlue.factory else {
            writeCreateError("no host table", into: errorBuffer, size: errorSize)
            return nil
        }
        let handle = HostHandle(host)
        do {
            let instance = try factory(handle, config.map { String(cString: $0) } ?? "{}")
            return Unmanaged.passRetained(Box(instance)).toOpaque()
        } catch {
            // A config refusal in the user's language (ABI 1.4; English from an older host).
            let reason = (error as? PluginConfigError)?.text { handle.tr($0, $1) } ?? "\(error)"
            writeCreateError(reason, into: errorBuffer, size: errorSize)
            return nil
        }
    }

    static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<Box>.fromOpaque(pointer).takeRetainedValue().instance.shutdown()
    }

    static let onEvent: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<oton_event>?) -> Void = { pointer, event in
        guard let pointer, let event else { return }
        instance(pointer).receive(EventView(event).snapshot)
    }

    static let onMedia: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<oton_media_buffer>?) -> Void = { pointer, buffer in
        guard let pointer, let buffer else { return }
        instance(pointer).receive(media: buffer)
    }

    static let onCommand:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, oton_reply_fn?, UnsafeMutableRawPointer?) -> oton_status = {
            pointer, name, arguments, reply, context in
            guard let pointer, let name else { return OTON_ERR_INVALID }
            let json = arguments.map { String(cString: $0) } ?? "[]"
            let list = (try? JSONValue.parse(Data(json.utf8)))?.stringsValue ?? []
            let ok = instance(pointer).command(String(cString: name), list) { piece in reply?(context, piece) }
            return ok ? OTON_OK : OTON_ERR_FAILED
        }
}

/// An instance that answers one command and handles events in one place (the share, sleep-timer and
/// web-remote plugins): it implements `handle(_:)` and `command(_:)`, the kit maps the protocol's
/// `receive` and `command(name, arguments)` onto them.
public protocol OneCommandPluginInstance: SwiftPluginInstance {
    /// An event of a kind the descriptor consumes.
    func handle(_ event: EventView.Snapshot)
    /// The plugin's one command with its arguments: the reply text and success.
    func command(_ arguments: [String]) -> (Bool, String)
}

public extension OneCommandPluginInstance {
    func receive(_ event: EventView.Snapshot) { handle(event) }
    func command(_ name: String, _ arguments: [String]) -> (Bool, String) { command(arguments) }
}
