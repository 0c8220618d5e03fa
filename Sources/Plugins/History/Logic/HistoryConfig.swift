import Foundation
import OtonJSON

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

    /// The database; nil means history.sqlite in the plugin's data folder ($XDG_DATA_HOME/oton/plugins/org.oton.history).
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

    /// Keys that would put a secret in plain text into plugins.json.
    static let plainSecretKeys: Set<String> = ["token", "api_key", "api_secret", "session_key", "secret", "password"]

    public static func parse(_ json: String, home: String = NSHomeDirectory()) throws(PluginConfigError) -> HistoryConfig {
        let reader = try PluginConfigReader(json: json)
        try reader.refuseUnknownKeys(
            known: [
                "database", "jingle_patterns", "min_live_seconds", "retry_initial_seconds",
                "retry_max_seconds", "request_timeout_seconds", "listenbrainz", "lastfm",
            ], owner: "a history")
        var config = HistoryConfig()
        config.database = try reader.path("database", home: home)
        config.jinglePatterns = try reader.strings("jingle_patterns", maxCount: 1000) ?? []
        for pattern in config.jinglePatterns {
            guard (try? Regex(pattern)) != nil else {
                throw reader.error("jingle_patterns", ": \"\(pattern)\" is not a valid regular expression")
            }
        }
        config.minimumLiveSeconds = try reader.number("min_live_seconds", in: 0...3600) ?? 30
        config.retryInitialSeconds = try reader.number("retry_initial_seconds", in: 0.05...3600) ?? 2
        config.retryMaximumSeconds = try reader.number("retry_max_seconds", in: 0.05...86400) ?? 600
        config.requestTimeoutSeconds = try reader.number("request_timeout_seconds", in: 0.1...300) ?? 15
        if config.retryMaximumSeconds < config.retryInitialSeconds { config.retryMaximumSeconds = config.retryInitialSeconds }

        if let section = try reader.service("listenbrainz", known: ["url", "token_env", "token_file"]) {
            var service = ListenBrainz()
            service.url = try section.string("url", nonEmpty: true) ?? service.url
            service.token = try section.secret("token", home: home)
            config.listenBrainz = service
        }
        if let section = try reader.service(
            "lastfm",
            known: [
                "url", "auth_url", "api_key_env", "api_key_file", "api_secret_env",
                "api_secret_file", "session_key_file",
            ])
        {
            var service = LastFM()
            service.url = try section.string("url", nonEmpty: true) ?? service.url
            service.authURL = try section.string("auth_url", nonEmpty: true) ?? service.authURL
            service.apiKey = try section.secret("api_key", home: home)
            service.apiSecret = try section.secret("api_secret", home: home)
            service.sessionKeyFile = try section.path("session_key_file", home: home)
            config.lastFM = service
        }
        return config
    }
}

/// The history plugin's own kinds of setting: paths with ~, secret references, service sections.
private extension PluginConfigReader {
    func path(_ key: String, home: String) throws(PluginConfigError) -> String? {
        try string(key, nonEmpty: true).map { $0 == "~" ? home : $0.hasPrefix("~/") ? home + String($0.dropFirst()) : $0 }
    }

    func secret(_ name: String, home: String) throws(PluginConfigError) -> SecretReference {
        SecretReference(environmentVariable: try string(name + "_env", nonEmpty: true), file: try path(name + "_file", home: home))
    }

    /// A service's sub-object; nil when absent, null or `"enabled": false`. A secret written in
    /// plain text is refused before anything else, with where to put it instead.
    func service(_ key: String, known: Set<String>) throws(PluginConfigError) -> PluginConfigReader? {
        guard let section = try section(key) else { return nil }
        for secretKey in HistoryConfig.plainSecretKeys.sorted() where section.members[secretKey] != nil {
            throw section.error(
                secretKey,
                ": secrets are never read from plugins.json; use \"\(secretKey)_env\" (an environment variable) or \"\(secretKey)_file\" (a file with mode 0600)"
            )
        }
        try section.refuseUnknownKeys(known: known.union(["enabled"]), owner: "a \(key)")
        if let enabled = try section.bool("enabled"), !enabled { return nil }
        return section
    }
}
