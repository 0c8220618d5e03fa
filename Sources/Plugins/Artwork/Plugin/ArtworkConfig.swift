import ArtworkLogic
import Foundation

/// The plugin's "config" object: cache_dir, cache_max_mb, timeout_seconds.
/// `status_retry_seconds` belonged to the status polling the host now does; it is
/// accepted and ignored so that existing configurations keep loading.
struct ArtworkConfig {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Empty: $XDG_CACHE_HOME/oton/artwork (derived from the host's cache directory).
    var cacheDirectory = ""
    var cacheMaxBytes = 64 << 20
    var timeoutMilliseconds = 10_000
    static let maxImageBytes = 10 << 20
    static let maxDimension = 4096

    static func parse(_ json: String) throws -> ArtworkConfig {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw Invalid(description: "config must be a JSON object")
        }
        var config = ArtworkConfig()
        if let value = object["cache_dir"] {
            guard let text = value as? String, text.hasPrefix("/") else { throw Invalid(description: "config.cache_dir must be an absolute path") }
            config.cacheDirectory = text
        }
        if let value = object["cache_max_mb"] {
            guard let number = value as? Double, number >= 1, number <= 10_000 else {
                throw Invalid(description: "config.cache_max_mb must be a number from 1 to 10000")
            }
            config.cacheMaxBytes = Int(number * 1_048_576)
        }
        if let value = object["timeout_seconds"] {
            guard let number = value as? Double, number >= 0.1, number <= 120 else {
                throw Invalid(description: "config.timeout_seconds must be a number from 0.1 to 120")
            }
            config.timeoutMilliseconds = Int(number * 1000)
        }
        if let value = object["status_retry_seconds"] {
            guard let list = value as? [Double], list.count <= 10, list.allSatisfy({ $0 >= 0 && $0 <= 60 }) else {
                throw Invalid(description: "config.status_retry_seconds must be a list of up to 10 delays from 0 to 60")
            }
            _ = list
        }
        return config
    }

    /// $XDG_CACHE_HOME/oton/artwork from the host's $XDG_CACHE_HOME/oton/plugins/<id>.
    func resolvedCacheDirectory(hostCacheDirectory: String) -> String {
        if !cacheDirectory.isEmpty { return cacheDirectory }
        let plugins = (hostCacheDirectory as NSString).deletingLastPathComponent
        let oton = (plugins as NSString).deletingLastPathComponent
        return (plugins as NSString).lastPathComponent == "plugins" ? oton + "/artwork" : hostCacheDirectory + "/artwork"
    }
}
