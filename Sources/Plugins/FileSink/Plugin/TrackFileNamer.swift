import FileSinkLogic
import Foundation

/// Names a track's file from the template: relative to the output folder, sanitized by the template.
struct TrackFileNamer {
    let settings: FileSinkSettings
    /// When the recording started: `{start}` names every file of one scheduled show alike.
    var started = Date()
    /// This recorder's own formatters: a recorder of many stations runs several file sinks at once,
    /// and a DateFormatter (or a cache of them) shared between them crashed one (seen under load).
    private let dayFormatter = TrackFileNamer.formatter("yyyy-MM-dd")
    private let timeFormatter = TrackFileNamer.formatter("HHmmss")
    private let momentFormatter = TrackFileNamer.formatter("yyyy-MM-dd HH.mm.ss")

    func relativeName(_ segment: TrackSplitter.Segment, at date: Date = Date()) -> String {
        let metadata = segment.metadata
        return settings.template.render([
            "station": metadata?.station ?? settings.station ?? "",
            "artist": metadata?.artist ?? "",
            "title": metadata?.title ?? "",
            "ext": segment.container.fileExtension(caps: segment.caps),
            "date": dayFormatter.string(from: date),
            "time": timeFormatter.string(from: date),
            "start": FileNameTemplate.startStamp(started),
            "sequence": metadata.map { String($0.sequence) } ?? "",
            FileNameTemplate.titlelessMoment: momentFormatter.string(from: date),
        ])
    }

    /// `path` relative to the output folder (for the index).
    func relativePath(_ path: String) -> String {
        path.hasPrefix(settings.directory + "/") ? String(path.dropFirst(settings.directory.count + 1)) : path
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = format
        return formatter
    }

    static func describe(_ metadata: TrackMetadata?) -> String {
        let text = [metadata?.artist, metadata?.title].compactMap { $0 }.joined(separator: " - ")
        return text.isEmpty ? "the current track" : "\"\(text)\""
    }
}
