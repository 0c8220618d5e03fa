import FileSinkLogic
import Foundation
import OtonJSON

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
            "date": TimeText.local(date, "yyyy-MM-dd"),
            "time": TimeText.local(date, "HHmmss"),
            "start": FileNameTemplate.startStamp(started),
            "sequence": metadata.map { String($0.sequence) } ?? "",
            FileNameTemplate.titlelessMoment: TimeText.local(date, "yyyy-MM-dd HH.mm.ss"),
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
