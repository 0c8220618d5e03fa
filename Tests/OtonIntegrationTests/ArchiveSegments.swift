import Foundation
import XCTest

/// The archive segments under a folder as a reader takes them: every audio file with its ledger
/// (`NAME.jsonl` beside it) in the order of their names (the names are start times).
struct ArchiveSegments {
    struct Segment {
        var path: String
        var ledger: [[String: Any]]
        var bytes: [UInt8]

        var header: [String: Any] { ledger.first { $0["type"] as? String == "segment" } ?? [:] }
        var summary: [String: Any]? { ledger.last { $0["type"] as? String == "end" } }
        var gaps: [[String: Any]] { ledger.filter { $0["type"] as? String == "gap" } }
        var startUnix: Double { header["start_unix"] as? Double ?? 0 }
        var fromBoundary: Bool { header["from_boundary"] as? Bool ?? false }
    }

    var segments: [Segment] = []

    init(_ folder: String, extensions: Set<String> = ["mp3", "aac", "ogg", "opus"]) throws {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        var paths: [String] = []
        while let relative = walker.nextObject() as? String {
            let path = folder + "/" + relative
            // A segment has its ledger beside it (track files, in the same folder tree, have none).
            if extensions.contains((relative as NSString).pathExtension),
                FileManager.default.fileExists(atPath: (path as NSString).deletingPathExtension + ".jsonl")
            {
                paths.append(path)
            }
        }
        for path in paths.sorted(by: { ($0 as NSString).lastPathComponent < ($1 as NSString).lastPathComponent }) {
            let ledgerPath = (path as NSString).deletingPathExtension + ".jsonl"
            let text = (try? String(contentsOfFile: ledgerPath, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            segments.append(Segment(path: path, ledger: lines, bytes: [UInt8](FileManager.default.contents(atPath: path) ?? Data())))
        }
    }

    var joined: [UInt8] { segments.reduce(into: []) { $0 += $1.bytes } }
}
