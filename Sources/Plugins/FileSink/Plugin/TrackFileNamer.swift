import FileSinkLogic
import Foundation

/// Names a track's file from the template: relative to the output folder, sanitized by the template.
struct TrackFileNamer {
    let settings: FileSinkSettings
    /// When the recording started: `{start}` names every file of one scheduled show alike.
    var started = Date()

    func relativeName(_ segment: TrackSplitter.Segment, at date: Date = Date()) -> String {
        let metadata = segment.metadata
        return settings.template.render([
            "station": metadata?.station ?? settings.station ?? "",
            "artist": metadata?.artist ?? "",
            "title": metadata?.title ?? "",
            "ext": segment.container.fileExtension(caps: segment.caps),
            "date": DateFormatter.cached("yyyy-MM-dd").string(from: date),
            "time": DateFormatter.cached("HHmmss").string(from: date),
            "start": FileNameTemplate.startStamp(started),
            "sequence": metadata.map { String($0.sequence) } ?? "",
        ])
    }

    /// `path` relative to the output folder (for the index).
    func relativePath(_ path: String) -> String {
        path.hasPrefix(settings.directory + "/") ? String(path.dropFirst(settings.directory.count + 1)) : path
    }

    static func describe(_ metadata: TrackMetadata?) -> String {
        let text = [metadata?.artist, metadata?.title].compactMap { $0 }.joined(separator: " - ")
        return text.isEmpty ? "the current track" : "\"\(text)\""
    }
}

extension DateFormatter {
    nonisolated(unsafe) private static var formatters: [String: DateFormatter] = [:]

    /// One formatter per format (only the writer queue uses them).
    static func cached(_ format: String) -> DateFormatter {
        if let formatter = formatters[format] { return formatter }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = format
        formatters[format] = formatter
        return formatter
    }
}
