import FileSinkLogic
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The pending-uploads journal's files, written and read by the recorder (on its mailbox).
enum UploadJournalFiles {
    /// Writes the entry of a finished segment (fsynced) before it counts as finished.
    static func write(directory: String, relative: String) throws {
        let folder = directory + "/" + UploadJournal.folder
        try FileOps.makeDirectories(folder)
        let text = UploadJournal.entryText(segment: relative, queuedUnix: Date().timeIntervalSince1970)
        try FileOps.replaceAtomically(folder + "/" + UploadJournal.entryName(relative), with: Data(text.utf8))
    }

    /// True while the segment at `path` (inside `directory`) waits for its upload.
    static func isPending(_ path: String, directory: String) -> Bool {
        guard path.hasPrefix(directory + "/") else { return false }
        let relative = String(path.dropFirst(directory.count + 1))
        return access(directory + "/" + UploadJournal.folder + "/" + UploadJournal.entryName(relative), F_OK) == 0
    }
}
