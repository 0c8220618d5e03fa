import Foundation

/// The plugin's "config" object from plugins.json (or from `oton record`'s flags).
public struct FileSinkSettings: Equatable, Sendable {
    public enum Mode: String, Sendable {
        /// Every track is written (`oton record`).
        case always
        /// Nothing is written until `record-current`; the current track is kept in memory meanwhile.
        case onDemand = "on-demand"
    }

    public enum Format: String, Sendable {
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

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(directory: String, template: FileNameTemplate) {
        self.directory = directory
        self.template = template
    }

    /// The largest max_seconds: a year (the same bound as `oton record --duration`).
    public static let maximumMaxSeconds = 31_536_000.0

    /// The largest max_mb: 1 TiB (the same bound as `oton record --max-size`).
    public static let maximumMaxMegabytes = 1_048_576.0

    public static func parse(_ json: String) throws -> FileSinkSettings {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
        } catch {
            throw Invalid(description: "config is not valid JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error)")
        }
        guard let object = parsed as? [String: Any] else {
            throw Invalid(description: "config must be a JSON object")
        }
        let known = Set(FileSinkKey.allCases.map(\.rawValue))
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(description: "config.\(unknown) is not a file-sink setting; known: \(known.sorted().joined(separator: ", "))")
        }
        guard let directory = object[FileSinkKey.directory.rawValue] as? String, !directory.isEmpty else {
            throw Invalid(description: "config.directory is required: the folder recordings go to")
        }
        let template: FileNameTemplate
        do {
            template = try FileNameTemplate(object[FileSinkKey.template.rawValue].map { $0 as? String ?? "" } ?? FileNameTemplate.standard)
        } catch {
            throw Invalid(description: "config.template: \(error)")
        }
        var settings = FileSinkSettings(directory: Self.expandHome(directory), template: template)
        if let value = object[FileSinkKey.names.rawValue] {
            guard let names = value as? String, names == "portable" || names == "posix" else {
                throw Invalid(description: "config.names must be \"portable\" (names FAT, exFAT and SMB accept; the default) or \"posix\" (every character Linux allows), not \(value)")
            }
            settings.template.portable = names == "portable"
        }
        if let value = object[FileSinkKey.format.rawValue] {
            guard let text = value as? String, let format = Format(rawValue: text) else {
                throw Invalid(description: "config.format must be \"stream\" (the encoded stream as received) or \"wav\" (decoded PCM)")
            }
            settings.format = format
        }
        for (key, path) in [(FileSinkKey.silenceWindow.rawValue, \FileSinkSettings.silenceWindow), (FileSinkKey.padBefore.rawValue, \FileSinkSettings.padBefore),
                            (FileSinkKey.padAfter.rawValue, \FileSinkSettings.padAfter)] {
            if let value = object[key] {
                guard let seconds = value as? Double, seconds >= 0, seconds <= 30 else {
                    throw Invalid(description: "config.\(key) must be a number of seconds from 0 to 30, not \(value)")
                }
                settings[keyPath: path] = seconds
            }
        }

        if let value = object[FileSinkKey.split.rawValue] {
            guard let flag = value as? Bool else { throw Invalid(description: "config.split must be true or false") }
            settings.split = flag
        }
        if let value = object[FileSinkKey.partial.rawValue] {
            guard let text = value as? String, let policy = PartialPolicy(rawValue: text) else {
                throw Invalid(description: "config.partial must be \"incomplete\", \"drop\" or \"keep\"")
            }
            settings.partial = policy
        }
        if let value = object[FileSinkKey.minSeconds.rawValue] {
            guard let seconds = value as? Double, seconds >= 0, seconds <= 3600 else {
                throw Invalid(description: "config.min_seconds must be a number from 0 to 3600, not \(value)")
            }
            settings.minimumSeconds = seconds
        }
        if let value = object[FileSinkKey.mode.rawValue] {
            guard let text = value as? String, let mode = Mode(rawValue: text) else {
                throw Invalid(description: "config.mode must be \"always\" or \"on-demand\"")
            }
            settings.mode = mode
        }
        if let value = object[FileSinkKey.bufferMb.rawValue] {
            guard let megabytes = value as? Double, megabytes >= 1, megabytes <= 4096 else {
                throw Invalid(description: "config.buffer_mb must be a number from 1 to 4096, not \(value)")
            }
            settings.bufferBytes = Int(megabytes * 1_048_576)
        }
        if let value = object[FileSinkKey.diskFloorMb.rawValue] {
            guard let megabytes = value as? Double, megabytes >= 0, megabytes <= 1_000_000_000 else {
                throw Invalid(description: "config.disk_floor_mb must be a number of megabytes from 0 to 1000000000, not \(value)")
            }
            settings.diskFloorBytes = UInt64(megabytes * 1_048_576)
        }
        if let value = object[FileSinkKey.maxMb.rawValue] {
            // The upper bound keeps megabytes * 1_048_576 far inside UInt64 (1e300 used to trap here).
            guard let megabytes = value as? Double, megabytes >= 0, megabytes <= Self.maximumMaxMegabytes else {
                throw Invalid(description: "config.max_mb must be a number of megabytes from 0 (no limit) to 1048576 (1 TiB), not \(value)")
            }
            settings.maxBytes = UInt64(megabytes * 1_048_576)
        }
        if let value = object[FileSinkKey.maxSeconds.rawValue] {
            guard let seconds = value as? Double, seconds >= 0, seconds <= Self.maximumMaxSeconds else {
                throw Invalid(description: "config.max_seconds must be a number of seconds of audio from 0 (no limit) to 31536000 (a year), not \(value)")
            }
            settings.maxNanoseconds = Int64(seconds * 1e9)
        }
        if let value = object[FileSinkKey.index.rawValue] {
            guard let text = value as? String, !text.isEmpty, !text.hasPrefix("/") else {
                throw Invalid(description: "config.index must be a file name relative to config.directory")
            }
            settings.indexName = FileNameTemplate.safePath(text)
        }
        for (key, path) in [(FileSinkKey.station.rawValue, \FileSinkSettings.station), (FileSinkKey.streamUrl.rawValue, \FileSinkSettings.streamURL)] {
            if let value = object[key] {
                guard let text = value as? String else { throw Invalid(description: "config.\(key) must be a string") }
                settings[keyPath: path] = text
            }
        }
        for (key, path) in [(FileSinkKey.quitOnError.rawValue, \FileSinkSettings.quitOnError), (FileSinkKey.tags.rawValue, \FileSinkSettings.writeTags),
                            (FileSinkKey.cue.rawValue, \FileSinkSettings.writeCue)] {
            if let value = object[key] {
                guard let flag = value as? Bool else { throw Invalid(description: "config.\(key) must be true or false") }
                settings[keyPath: path] = flag
            }
        }
        return settings
    }

    /// Stream mode with a silence search: the decoded audio is listened to beside the stream.
    public var listensToDecodedAudio: Bool { format == .stream && silenceWindow > 0 }

    /// The splitter these settings ask for.
    public func makeSplitter() -> TrackSplitter {
        var splitter = TrackSplitter(split: split, aligner: CutAligner(
            window: Int64(silenceWindow * 1e9), pre: Int64(padBefore * 1e9), post: Int64(padAfter * 1e9)))
        if format == .wav { splitter.maxSegmentBytes = WAVLayout.maxDataBytes }
        return splitter
    }

    static func expandHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (ProcessInfo.processInfo.environment["HOME"] ?? "") + path.dropFirst()
    }
}
