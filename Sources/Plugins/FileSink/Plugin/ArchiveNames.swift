import FileSinkLogic
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Gives each archive segment its name: the one owner of that decision. The template's name, or
/// `NAME (2)`, `NAME (3)` … when the name is taken (``ArchiveNameRecord`` says what counts as
/// taken: the folder, the upload journal and the record of names given). Under the folder's lock,
/// so two recorders of one folder never pick the same name. On the recorder's mailbox worker.
enum ArchiveNames {
    /// Creates the `.part` of a segment named from `base` (an absolute path inside `root`, without
    /// `.part`) and writes the name given into the record.
    static func claim(_ base: String, root: String, start: Int64, period: ArchivePeriod, caseBlind: Bool) throws -> PartFile {
        try FileOps.withDirectoryLock(root) {
            let recordPath = root + "/" + ArchiveNameRecord.fileName
            let relativeBase = relative(base, root: root)
            let now = Int64(Date().timeIntervalSince1970 * 1e9)
            let all = ArchiveNameRecord.parse(FileManager.default.contents(atPath: recordPath).map { String(decoding: $0, as: UTF8.self) } ?? "")
            let kept = ArchiveNameRecord.kept(all, now: now, horizon: ArchiveNameRecord.horizon(period: period), base: relativeBase)
            let given = Set(kept.map(\.name))
            var lastError: Error = PartFile.Failure(description: "too many files named like \(base)")
            for counter in 1...10_000 {
                let candidate = FileOps.numberedPath(base, counter)
                if given.contains(relative(candidate, root: root)) || isTaken(candidate, root: root, caseBlind: caseBlind) { continue }
                let file: PartFile
                do {
                    file = try PartFile(creating: candidate + ".part")
                } catch let failure as PartFile.Failure where failure.code == EEXIST {
                    lastError = failure
                    continue
                }
                let entry = ArchiveNameRecord.Entry(name: relative(candidate, root: root), base: relativeBase, start: start)
                do {
                    if kept.count == all.count {
                        try ArchiveMarker.appendLine(ArchiveNameRecord.line(entry), to: recordPath)
                    } else {
                        let text = (kept + [entry]).map { ArchiveNameRecord.line($0) + "\n" }.joined()
                        try FileOps.replaceAtomically(recordPath, with: Data(text.utf8))
                    }
                } catch {
                    file.close(sync: false)
                    unlink(file.path)
                    throw error
                }
                return file
            }
            throw lastError
        }
    }

    /// The segment, its `.part`, its ledger or its upload-journal entry is there.
    private static func isTaken(_ path: String, root: String, caseBlind: Bool) -> Bool {
        let ledger = ArchiveMarker.ledgerPath(forSegment: path)
        if access(path, F_OK) == 0 || access(path + ".part", F_OK) == 0 || access(ledger, F_OK) == 0 { return true }
        if UploadJournalFiles.isPending(path, directory: root) { return true }
        guard caseBlind, let names = try? FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent) else { return false }
        // One listing of the folder (a day of 1-minute segments is 2,880 names) for the three names.
        let folded = Set(names.map(CaseBlindNames.folded))
        let exact = Set(names)
        return [path + ".part", path, ledger].contains { candidate in
            let name = (candidate as NSString).lastPathComponent
            return !exact.contains(name) && folded.contains(CaseBlindNames.folded(name))
        }
    }

    private static func relative(_ path: String, root: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}
