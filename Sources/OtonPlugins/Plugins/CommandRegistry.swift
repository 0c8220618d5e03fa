import Logging
import OtonSupport
import Synchronization

/// Which plugin answers which control command. Names are unique across plugins; every
/// registration, from a descriptor, from `register_command` or from an isolated plugin's process,
/// goes through ``register(_:for:)`` and so through ``CommandRule``.
public final class CommandRegistry: Sendable {
    public struct Entry: Equatable, Sendable {
        public var pluginID: String
        public var command: PluginManifest.Command
    }

    public enum Registration: Equatable, Sendable {
        case registered
        /// Another plugin has the name.
        case taken(by: String)
        /// The rule or a cap refused it; the reason is for the log.
        case refused(String)
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Plugins whose refused registration was logged already (once per plugin until ``removeAll(of:)``).
        var refusalsLogged: Set<String> = []
    }

    private let state = Mutex(State())

    public init() {}

    public func register(_ command: PluginManifest.Command, for pluginID: String) -> Registration {
        if let reason = CommandRule.refusal(of: command) { return .refused(reason) }
        return state.withLock { state in
            if let existing = state.entries[command.name] {
                guard existing.pluginID == pluginID else { return .taken(by: existing.pluginID) }
            } else if state.entries.values.count(where: { $0.pluginID == pluginID }) >= CommandRule.maximumPerPlugin {
                return .refused("it already has \(CommandRule.maximumPerPlugin) commands (the most a plugin may have)")
            }
            state.entries[command.name] = Entry(pluginID: pluginID, command: command)
            return .registered
        }
    }

    /// True the first time for `pluginID` (until its commands are removed): a plugin that keeps
    /// sending refused registrations is logged once, not once per registration.
    public func shouldLogRefusal(for pluginID: String) -> Bool {
        state.withLock { $0.refusalsLogged.insert(pluginID).inserted }
    }

    public func removeAll(of pluginID: String) {
        state.withLock { state in
            state.entries = state.entries.filter { $0.value.pluginID != pluginID }
            state.refusalsLogged.remove(pluginID)
        }
    }

    public func entry(named name: String) -> Entry? {
        state.withLock { $0.entries[name] }
    }

    /// Every command, sorted by name.
    public var all: [Entry] {
        state.withLock { $0.entries.values.sorted { $0.command.name < $1.command.name } }
    }
}

extension CommandRegistry {
    /// Registers and logs what was not registered (a refusal once per plugin), as every caller does.
    @discardableResult
    package func register(_ command: PluginManifest.Command, for pluginID: String, logger: Logger) -> Registration {
        let outcome = register(command, for: pluginID)
        switch outcome {
        case .registered: break
        case let .taken(owner):
            logger.warning(
                "\(tr("plugin {plugin}: command \"{command}\" is already provided by {owner}; {owner} keeps it", ["plugin": pluginID, "command": command.name, "owner": owner]))"
            )
        case let .refused(reason):
            if shouldLogRefusal(for: pluginID) {
                logger.warning(
                    "\(tr("plugin {plugin}: command {command} refused: {reason}; later refusals of this plugin are not logged", ["plugin": pluginID, "command": CommandRule.quoted(command.name), "reason": reason]))"
                )
            }
        }
        return outcome
    }
}
