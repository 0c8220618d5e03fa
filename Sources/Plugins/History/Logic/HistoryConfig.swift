import Foundation

/// Where a secret comes from: an environment variable or a file (mode 0600).
/// Secrets themselves never appear in plugins.json.
public struct SecretReference: Equatable, Sendable {
    public var environmentVariable: String?
    public var file: String?

    public init(environmentVariable: String? = nil, file: String? = nil) {
        self.environmentVariable = environmentVariable
        self.file = file
    }

    public var isConfigured: Bool { environmentVariable != nil || file != nil }
}

/// The History plugin's "config" object from plugins.json.
public struct HistoryConfig: Equatable, Sendable {
    public struct ListenBrainz: Equatable, Sendable {
        public var url = "https://api.listenbrainz.org"
        public var token = SecretReference()
    }

    public struct LastFM: Equatable, Sendable {
        public var url = "https://ws.audioscrobbler.com/2.0/"
        public var authURL = "https://www.last.fm/api/auth/"
        public var apiKey = SecretReference()
        public var apiSecret = SecretReference()
        public var sessionKeyFile: String?
    }

    /// The database; nil means $XDG_DATA_HOME/oton/history.sqlite.
    public var database: String?
    /// Extra jingle/advert title patterns (regular expressions, case-insensitive).
    public var jinglePatterns: [String] = []
    /// Minimum seconds heard for a live track (unknown duration) to be scrobbled.
    public var minimumLiveSeconds: Double = 30
    /// First and largest delay between submission attempts while a service is down.
    public var retryInitialSeconds: Double = 2
    public var retryMaximumSeconds: Double = 600
    /// HTTP timeout of one request.
    public var requestTimeoutSeconds: Double = 15
    /// Scrobbling services; nil when not configured (the default).
    public var listenBrainz: ListenBrainz?
    public var lastFM: LastFM?

    public init() {}

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Keys that would put a secret in plain text into plugins.json.
    static let plainSecretKeys: Set<String> = ["token", "api_key", "api_secret", "session_key", "secret", "password"]

    public static func parse(_ json: String, home: String = NSHomeDirectory()) throws -> HistoryConfig {
        guard let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Invalid("config must be a JSON object")
        }
        var config = HistoryConfig()
        let reader = ObjectReader(object: object, location: "config", home: home)
        config.database = try reader.path("database")
        config.jinglePatterns = try reader.strings("jingle_patterns") ?? []
        for pattern in config.jinglePatterns {
            guard (try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive])) != nil else {
                throw Invalid("config.jingle_patterns: \"\(pattern)\" is not a valid regular expression")
            }
        }
        config.minimumLiveSeconds = try reader.number("min_live_seconds", in: 0 ... 3600) ?? 30
        config.retryInitialSeconds = try reader.number("retry_initial_seconds", in: 0.05 ... 3600) ?? 2
        config.retryMaximumSeconds = try reader.number("retry_max_seconds", in: 0.05 ... 86400) ?? 600
        config.requestTimeoutSeconds = try reader.number("request_timeout_seconds", in: 0.1 ... 300) ?? 15
        if config.retryMaximumSeconds < config.retryInitialSeconds { config.retryMaximumSeconds = config.retryInitialSeconds }

        if let section = try reader.section("listenbrainz") {
            var service = ListenBrainz()
            service.url = try section.string("url") ?? service.url
            service.token = try section.secret("token")
            config.listenBrainz = service
        }
        if let section = try reader.section("lastfm") {
            var service = LastFM()
            service.url = try section.string("url") ?? service.url
            service.authURL = try section.string("auth_url") ?? service.authURL
            service.apiKey = try section.secret("api_key")
            service.apiSecret = try section.secret("api_secret")
            service.sessionKeyFile = try section.path("session_key_file")
            config.lastFM = service
        }
        return config
    }
}

/// Reads typed values out of a JSON object, naming the exact key in errors.
private struct ObjectReader {
    let object: [String: Any]
    let location: String
    let home: String

    func string(_ key: String) throws -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String, !text.isEmpty else { throw HistoryConfig.Invalid("\(location).\(key) must be a non-empty string") }
        return text
    }

    func path(_ key: String) throws -> String? {
        try string(key).map { $0 == "~" ? home : $0.hasPrefix("~/") ? home + String($0.dropFirst()) : $0 }
    }

    func strings(_ key: String) throws -> [String]? {
        guard let value = object[key] else { return nil }
        guard let list = value as? [String] else { throw HistoryConfig.Invalid("\(location).\(key) must be a list of strings") }
        return list
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value = object[key] else { return nil }
        // JSON true/false also arrive as NSNumber; their objCType is "c" (char).
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c", range.contains(number.doubleValue) else {
            throw HistoryConfig.Invalid("\(location).\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number.doubleValue
    }

    /// A sub-object; nil when absent or `"enabled": false`.
    func section(_ key: String) throws -> ObjectReader? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let nested = value as? [String: Any] else { throw HistoryConfig.Invalid("\(location).\(key) must be an object") }
        for secretKey in HistoryConfig.plainSecretKeys where nested[secretKey] != nil {
            throw HistoryConfig.Invalid("\(location).\(key).\(secretKey): secrets are never read from plugins.json; use \"\(secretKey)_env\" (an environment variable) or \"\(secretKey)_file\" (a file with mode 0600)")
        }
        if let enabled = nested["enabled"] as? Bool, !enabled { return nil }
        return ObjectReader(object: nested, location: "\(location).\(key)", home: home)
    }

    func secret(_ name: String) throws -> SecretReference {
        SecretReference(environmentVariable: try string(name + "_env"), file: try path(name + "_file"))
    }
}
