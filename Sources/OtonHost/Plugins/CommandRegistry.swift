import Synchronization

/// Which plugin answers which control command. Names are unique across plugins.
public final class CommandRegistry: Sendable {
    public struct Entry: Equatable, Sendable {
        public var pluginID: String
        public var command: PluginManifest.Command
    }

    private let entries = Mutex<[String: Entry]>([:])

    public init() {}

    /// False when another plugin already has the name.
    @discardableResult
    public func register(_ command: PluginManifest.Command, for pluginID: String) -> Bool {
        entries.withLock { entries in
            if let existing = entries[command.name], existing.pluginID != pluginID { return false }
            entries[command.name] = Entry(pluginID: pluginID, command: command)
            return true
        }
    }

    public func removeAll(of pluginID: String) {
        entries.withLock { entries in entries = entries.filter { $0.value.pluginID != pluginID } }
    }

    public func entry(named name: String) -> Entry? {
        entries.withLock { $0[name] }
    }

    /// Every command, sorted by name.
    public var all: [Entry] {
        entries.withLock { $0.values.sorted { $0.command.name < $1.command.name } }
    }
}
