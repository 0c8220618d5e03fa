import Foundation
import OtonJSON

/// The plugin's "config" object: cache_dir, cache_max_mb, timeout_seconds.
/// `status_retry_seconds` belonged to the status polling the host now does; it is still
/// checked and otherwise ignored, so that existing configurations keep loading.
public struct ArtworkConfig: Sendable, Equatable {
    /// Empty: $XDG_CACHE_HOME/oton/artwork (derived from the host's cache directory).
    public var cacheDirectory = ""
    public var cacheMaxBytes = 64 << 20
    public var timeoutMilliseconds = 10_000
    public static let maxImageBytes = 10 << 20
    public static let maxDimension = 4096

    public init() {}

    public static func parse(_ json: String) throws(PluginConfigError) -> ArtworkConfig {
        let reader = try PluginConfigReader(json: json)
        try reader.refuseUnknownKeys(known: ["cache_dir", "cache_max_mb", "timeout_seconds", "status_retry_seconds"], owner: "an artwork")
        var config = ArtworkConfig()
        if let path = try reader.string("cache_dir", expected: "an absolute path") {
            guard path.hasPrefix("/") else { throw reader.error("cache_dir", "must be an absolute path, not \"\(path)\"") }
            config.cacheDirectory = path
        }
        if let megabytes = try reader.number("cache_max_mb", in: 1...10_000) {
            config.cacheMaxBytes = Int(megabytes * 1_048_576)
        }
        if let seconds = try reader.number("timeout_seconds", in: 0.1...120) {
            config.timeoutMilliseconds = Int(seconds * 1000)
        }
        _ = try reader.numbers(
            "status_retry_seconds", in: 0...60, maxCount: 10,
            expected: "a list of up to 10 delays from 0 to 60")
        return config
    }

    /// $XDG_CACHE_HOME/oton/artwork from the host's $XDG_CACHE_HOME/oton/plugins/<id>.
    public func resolvedCacheDirectory(hostCacheDirectory: String) -> String {
        if !cacheDirectory.isEmpty { return cacheDirectory }
        let plugins = (hostCacheDirectory as NSString).deletingLastPathComponent
        let oton = (plugins as NSString).deletingLastPathComponent
        return (plugins as NSString).lastPathComponent == "plugins" ? oton + "/artwork" : hostCacheDirectory + "/artwork"
    }
}
