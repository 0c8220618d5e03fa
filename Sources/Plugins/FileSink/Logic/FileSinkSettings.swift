import FoundationEssentials
import OtonJSON

/// The plugin's "config" object from plugins.json (or from `oton record`'s flags).
public struct FileSinkSettings: Equatable, Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Every track is written (`oton record`).
        case always
        /// Nothing is written until `record-current`; the current track is kept in memory meanwhile.
        case onDemand = "on-demand"
    }

    public enum Format: String, Sendable, CaseIterable {
        /// The encoded stream as received (the stream tap).
        case stream
        /// WAV from the decoded PCM tap.
        case wav
    }

    public var directory: String
    public var format = Format.stream
    /// Move each cut to the quietest 100 ms within ± this many seconds of the title change (0: off). In
    /// stream mode the loudness comes from the host's PCM tap, which the plugin then selects as well.
    public var silenceWindow = 0.0
    /// Start each track this many seconds early and end it this many seconds late (the files overlap).
    public var padBefore = 0.0
    public var padAfter = 0.0
    public var template: FileNameTemplate
    public var split = true
    public var partial = PartialPolicy.incomplete
    public var minimumSeconds = 5.0
    public var mode = Mode.always
    /// Memory for the current track in on-demand mode; a longer track loses its beginning.
    public var bufferBytes = 64 << 20
    /// Recording stops when the output folder's filesystem has less free space than this.
    public var diskFloorBytes: UInt64 = 64 << 20
    /// Relative to the output folder.
    public var indexName = "index.json"
    /// Used when the stream names no station.
    public var station: String?
    /// Written to the ID3 comment when the track event has none.
    public var streamURL: String?
    /// Ask the host to quit when recording has to stop (disk full, write error): for `oton record`.
    public var quitOnError = false
    /// Stop recording after this many bytes in all (`--max-size`); 0 means no limit.
    public var maxBytes: UInt64 = 0
    /// Stop recording after this much audio in all files (`--duration`: audio time, the server's
    /// burst of audio from before the start included); 0 means no limit.
    public var maxNanoseconds: Int64 = 0
    /// ID3v2.4 tags on MP3 files.
    public var writeTags = true
    /// A CUE sheet (NAME.cue) beside every finished file, listing where its tracks begin.
    public var writeCue = false
    /// `oton record --wishlist`: every track is recorded as usual, but a finished one is kept only when
    /// the host announced its sequence as a wish to keep (`org.oton.wish.heard` with keep=true).
    public var wishlist = false
    /// Per-track files (false: archive segments only).
    public var tracks = true
    /// Archive mode: segments cut at wall-clock boundaries, with a gap ledger each.
    public var archive: ArchiveSettings?
    /// Level, dead air, title stalls and format changes watched and announced (nil: not watched).
    public var airWatch: AirWatch.Settings?

    public init(directory: String, template: FileNameTemplate) {
        self.directory = directory
        self.template = template
    }

    /// The largest max_seconds: a year (the same bound as `oton record --duration`).
    public static let maximumMaxSeconds = 31_536_000.0

    /// The largest max_mb: 1 TiB (the same bound as `oton record --max-size`).
    public static let maximumMaxMegabytes = 1_048_576.0

    public static func parse(_ json: String) throws(PluginConfigError) -> FileSinkSettings {
        let config = try PluginConfigReader(json: json)
        try config.refuseUnknownKeys(known: Set(FileSinkKey.allCases.map(\.rawValue)), owner: "a file-sink")
        func key(_ key: FileSinkKey) -> String { key.rawValue }

        guard let directory = try config.string(key(.directory), nonEmpty: true, expected: "the folder recordings go to") else {
            throw config.error(key(.directory), "is required: the folder recordings go to")
        }
        let template: FileNameTemplate
        do {
            template = try FileNameTemplate(config.string(key(.template)) ?? FileNameTemplate.standard)
        } catch let error as PluginConfigError {
            throw error
        } catch {
            throw config.error(key(.template), "cannot be used: \(error)")
        }
        var settings = FileSinkSettings(directory: Self.expandHome(directory), template: template)
        if let names = try config.string(key(.names)) {
            guard names == "portable" || names == "posix" else {
                throw config.error(
                    key(.names),
                    "must be \"portable\" (names FAT, exFAT and SMB accept; the default) or \"posix\" (every character Linux allows), not \"\(names)\"")
            }
            settings.template.portable = names == "portable"
        }
        if let format = try config.choice(
            key(.format), Format.self,
            expected: "\"stream\" (the encoded stream as received) or \"wav\" (decoded PCM)")
        {
            settings.format = format
        }
        let seconds: [(FileSinkKey, WritableKeyPath<FileSinkSettings, Double>)] = [
            (.silenceWindow, \.silenceWindow), (.padBefore, \.padBefore), (.padAfter, \.padAfter),
        ]
        for (name, path) in seconds {
            if let value = try config.number(key(name), in: 0...30, expected: "a number of seconds from 0 to 30") {
                settings[keyPath: path] = value
            }
        }
        if let flag = try config.bool(key(.split)) { settings.split = flag }
        if let policy = try config.choice(key(.partial), PartialPolicy.self) { settings.partial = policy }
        if let value = try config.number(key(.minSeconds), in: 0...3600) { settings.minimumSeconds = value }
        if let mode = try config.choice(key(.mode), Mode.self) { settings.mode = mode }
        if let megabytes = try config.number(key(.bufferMb), in: 1...4096) {
            settings.bufferBytes = Int(megabytes * 1_048_576)
        }
        if let megabytes = try config.number(
            key(.diskFloorMb), in: 0...1_000_000_000,
            expected: "a number of megabytes from 0 to 1000000000")
        {
            settings.diskFloorBytes = UInt64(megabytes * 1_048_576)
        }
        // The upper bound keeps megabytes * 1_048_576 far inside UInt64 (1e300 used to trap here).
        if let megabytes = try config.number(
            key(.maxMb), in: 0...Self.maximumMaxMegabytes,
            expected: "a number of megabytes from 0 (no limit) to 1048576 (1 TiB)")
        {
            settings.maxBytes = UInt64(megabytes * 1_048_576)
        }
        if let value = try config.number(
            key(.maxSeconds), in: 0...Self.maximumMaxSeconds,
            expected: "a number of seconds of audio from 0 (no limit) to 31536000 (a year)")
        {
            settings.maxNanoseconds = Int64(value * 1e9)
        }
        if let index = try config.string(key(.index), nonEmpty: true, expected: "a file name relative to config.directory") {
            guard !index.hasPrefix("/") else {
                throw config.error(key(.index), "must be a file name relative to config.directory, not \"\(index)\"")
            }
            settings.indexName = FileNameTemplate.safePath(index)
        }
        if let station = try config.string(key(.station)) { settings.station = station }
        if let url = try config.string(key(.streamUrl)) { settings.streamURL = url }
        let flags: [(FileSinkKey, WritableKeyPath<FileSinkSettings, Bool>)] = [
            (.quitOnError, \.quitOnError), (.tags, \.writeTags), (.cue, \.writeCue), (.wishlist, \.wishlist),
        ]
        for (name, path) in flags {
            if let flag = try config.bool(key(name)) { settings[keyPath: path] = flag }
        }
        settings.archive = try ArchiveSettings.parse(config)
        settings.airWatch = try AirWatch.Settings.parse(config)
        if settings.archive != nil && settings.format == .wav {
            throw config.error(key(.archive), "records the encoded stream as received; it cannot be used with format \"wav\"")
        }
        if let flag = try config.bool(key(.tracks)) { settings.tracks = flag }
        guard settings.tracks || settings.archive != nil else {
            throw config.error(key(.tracks), "false needs archive: with neither tracks nor an archive nothing would be recorded")
        }
        return settings
    }

    /// Stream mode with a silence search: the decoded audio is listened to beside the stream.
    public var listensToDecodedAudio: Bool { format == .stream && silenceWindow > 0 }

    /// The splitter these settings ask for.
    public func makeSplitter() -> TrackSplitter {
        var splitter = TrackSplitter(
            split: split,
            aligner: CutAligner(
                window: Int64(silenceWindow * 1e9), pre: Int64(padBefore * 1e9), post: Int64(padAfter * 1e9)))
        if format == .wav { splitter.maxSegmentBytes = WAVLayout.maxDataBytes }
        return splitter
    }

    static func expandHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (ProcessInfo.processInfo.environment["HOME"] ?? "") + path.dropFirst()
    }
}
