import Foundation
import OtonJSON

/// Which directory server to ask: `--server`, else `"directory_server"` in the
/// plugins.json in use, else one found through DNS (``DirectoryServerDiscovery``).
public enum DirectoryServerSetting {
    /// The top-level plugins.json key naming the server.
    public static let configKey = "directory_server"

    /// `pool`: the DNS name to discover servers under (tests give one that cannot resolve).
    public static func choose(
        flag: String?, configFile: String?,
        pool: String = DirectoryServerDiscovery.poolName
    ) throws(DirectoryError) -> String {
        if let flag { return flag }
        if let configFile, let configured = configured(in: configFile) { return configured }
        guard let found = try DirectoryServerDiscovery.servers(pool: pool).first else {
            throw .noServer(reason: "the DNS name \(pool) gave no server names")
        }
        return found
    }

    /// The key's value in `file`, when the file is readable JSON and the value a string.
    package static func configured(in file: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: ConfigLoader.maxBytes), let root = try? JSONValue.parse(data),
            let value = root[configKey]?.stringValue, !value.isEmpty
        else { return nil }
        return value
    }
}
