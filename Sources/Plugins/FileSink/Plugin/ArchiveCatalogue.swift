import FileSinkLogic
import Foundation
import OtonJSON

/// The finished archive segments under an output folder, for the retention: every ledger
/// (`NAME.jsonl` whose first line is a `segment`) with its segment beside it. Read once when a
/// recording with `--keep`/`--keep-size` starts; afterwards the recorder adds what it finishes.
enum ArchiveCatalogue {
    /// `refused`: segments ledgers name that are outside the folder or symbolic links
    /// (``ArchiveConfinement``), with their ledgers; never in `entries`, so never deleted.
    static func scan(_ root: String) -> (entries: [ArchiveRetention.Entry], refused: [(path: String, ledger: String)]) {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return ([], []) }
        var entries: [ArchiveRetention.Entry] = []
        var refused: [(path: String, ledger: String)] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".jsonl"), !relative.hasPrefix(".") else { continue }
            let ledger = root + "/" + relative
            guard let first = firstLine(of: ledger), let value = try? JSONValue.parse(Data(first.utf8)),
                value["type"]?.stringValue == "segment", let file = value["file"]?.stringValue,
                let start = value["start_unix"]?.numberValue
            else { continue }
            let segment = (ledger as NSString).deletingLastPathComponent + "/" + file
            guard ArchiveConfinement.isInside(ledger, root: root), ArchiveConfinement.isInside(segment, root: root) else {
                refused.append((segment, ledger))
                continue
            }
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: segment),
                let modified = attributes[FileAttributeKey.modificationDate] as? Date
            else { continue }  // still a .part: not finished
            let bytes = (attributes[FileAttributeKey.size] as? NSNumber)?.uint64Value ?? 0
            entries.append(
                ArchiveRetention.Entry(
                    path: segment, start: Int64(start * 1e9), end: Int64(modified.timeIntervalSince1970 * 1e9),
                    bytes: bytes + (size(of: ledger) ?? 0)))
        }
        return (entries, refused)
    }

    static func size(of path: String) -> UInt64? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[FileAttributeKey.size] as? NSNumber)?.uint64Value
    }

    /// Removes `folder` and its parents up to (not including) `root` while they are empty.
    static func removeEmptyFolders(from folder: String, root: String) {
        var current = folder
        while current.hasPrefix(root + "/"), rmdir(current) == 0 {
            current = (current as NSString).deletingLastPathComponent
        }
    }

    private static func firstLine(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096), let text = String(data: data, encoding: .utf8) else { return nil }
        return text.split(separator: "\n", maxSplits: 1).first.map(String.init)
    }
}
