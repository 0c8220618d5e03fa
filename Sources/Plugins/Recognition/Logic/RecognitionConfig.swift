import OtonJSON

/// The recognition plugin's "config" object from plugins.json. The plugin is off unless its entry
/// says `"enabled": true`; these keys only shape it:
///
/// - database: the index file; absent means recognition.sqlite in the plugin's data folder
///   ($XDG_DATA_HOME/oton/plugins/org.oton.recognition).
/// - max_mb: the index's size cap in megabytes (1 to 2000, default 50); past it the oldest
///   songs go first. A song of 4 minutes costs about 47 KB (``FingerprintBudget``): 50 MB keep some 1,100.
/// - max_track_seconds: the most of one titled song fingerprinted (60 to 1800, default 600).
public struct RecognitionConfig: Sendable, Equatable {
    public static let knownKeys: Set<String> = ["database", "max_mb", "max_track_seconds"]

    public var database: String?
    public var maxMegabytes = 50
    public var maxTrackSeconds = 600

    public init() {}

    /// The most fingerprint frames the index keeps.
    public var maxFrames: Int { FingerprintBudget.frames(megabytes: maxMegabytes) }

    public static func parse(_ json: String) throws(PluginConfigError) -> RecognitionConfig {
        let reader = try PluginConfigReader(json: json, example: #"{"max_mb": 50}"#)
        try reader.refuseUnknownKeys(known: knownKeys, owner: "a recognition")
        var config = RecognitionConfig()
        if let path = try reader.string("database", nonEmpty: true, maxCount: 4096, expected: "a file path such as \"~/recognition.sqlite\"") {
            config.database = path
        }
        if let megabytes = try reader.integer("max_mb", in: 1...2000) { config.maxMegabytes = megabytes }
        if let seconds = try reader.integer("max_track_seconds", in: 60...1800) { config.maxTrackSeconds = seconds }
        return config
    }
}

/// What one fingerprint frame costs on disk: its 4 bytes in the song's row and its posting (key,
/// song, position) in the lookup table with SQLite's overhead, measured on a filled index
/// (RecognitionIndexTests checks the file stays under the cap).
public enum FingerprintBudget {
    public static let bytesPerFrame = 24

    public static func frames(megabytes: Int) -> Int { megabytes * 1_048_576 / bytesPerFrame }
}
