import PluginAPI
import Synchronization

/// Maps event kind names to the integers that travel in `oton_event.kind`.
/// Core kinds are fixed by the header; namespaced kinds (reverse-DNS names
/// that plugins publish) get numbers from OTON_EVENT_FIRST_DYNAMIC on, once
/// per process. Safe from any thread.
public final class EventKindRegistry: Sendable {
    public static let coreKinds: [(String, UInt32)] = [
        ("track", OTON_EVENT_TRACK),
        ("state", OTON_EVENT_STATE),
        ("volume", OTON_EVENT_VOLUME),
        ("dropped", OTON_EVENT_DROPPED),
    ]

    private struct Tables {
        var byName: [String: UInt32] = [:]
        var byKind: [UInt32: String] = [:]
        var next: UInt32 = OTON_EVENT_FIRST_DYNAMIC
    }

    private let tables: Mutex<Tables>

    public init() {
        var tables = Tables()
        for (name, kind) in Self.coreKinds {
            tables.byName[name] = kind
            tables.byKind[kind] = name
        }
        self.tables = Mutex(tables)
    }

    /// The kind for `name`, registering a namespaced name on first use.
    /// Returns nil for a name that is neither core nor valid reverse-DNS.
    public func kind(for name: String) -> UInt32? {
        tables.withLock { tables in
            if let kind = tables.byName[name] { return kind }
            guard Self.isNamespacedName(name) else { return nil }
            let kind = tables.next
            tables.next += 1
            tables.byName[name] = kind
            tables.byKind[kind] = name
            return kind
        }
    }

    public func name(for kind: UInt32) -> String? {
        tables.withLock { $0.byKind[kind] }
    }

    /// Reverse-DNS: at least two dot-separated labels of [a-z0-9-_], ≤ 255 bytes.
    public static func isNamespacedName(_ name: String) -> Bool {
        guard name.utf8.count <= 255 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty
                && label.utf8.allSatisfy { byte in
                    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                        || byte == 0x2D || byte == 0x5F || (byte >= 0x41 && byte <= 0x5A)
                }
        }
    }
}
