import FileSinkLogic
import Foundation

/// The recording folder's index.json, which several processes may share:
/// every save merges this session's tracks into what is on disk under a lock
/// on the folder, and replaces the file atomically. Other sessions' entries
/// are never dropped.
struct SharedIndexFile {
    let path: String
    let directory: String
    let streamURL: String?

    /// Refuses a file that exists and is not an index (it may be someone's data).
    init(directory: String, name: String, streamURL: String?) throws {
        self.directory = directory
        self.streamURL = streamURL
        path = directory + "/" + name
        if let data = FileManager.default.contents(atPath: path), (try? RecordingIndex.decode(data)) == nil {
            throw PartFile.Failure(description: "\(path) exists but is not a recording index; move it away or set config.index")
        }
    }

    /// Entries left `recording` by a process that is gone become `interrupted` (their .part stays).
    /// Returns how many, for the log.
    func markInterrupted(except session: String) throws -> Int {
        try FileOps.withDirectoryLock(directory) {
            guard let data = FileManager.default.contents(atPath: path), var index = try? RecordingIndex.decode(data) else { return 0 }
            let before = index.tracks.filter { $0.status == .interrupted }.count
            guard index.markInterrupted(except: session, isAlive: Self.isRecorderAlive) else { return 0 }
            try FileOps.replaceAtomically(path, with: index.encoded())
            return index.tracks.filter { $0.status == .interrupted }.count - before
        }
    }

    /// The process exists and is an oton (a pid can be reused).
    static func isRecorderAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return name.hasPrefix("oton")
    }

    /// Merges `tracks` (this session's, newest state) into the file. Returns a warning to log, if any.
    func save(_ tracks: [RecordingIndex.Track]) throws -> String? {
        try FileOps.withDirectoryLock(directory) {
            var warning: String?
            var merged = RecordingIndex(streamURL: streamURL)
            if let data = FileManager.default.contents(atPath: path) {
                if let existing = try? RecordingIndex.decode(data) {
                    merged = existing
                } else {
                    let aside = path + ".unreadable-\(Int(Date().timeIntervalSince1970))"
                    rename(path, aside)
                    warning = "\(path) was not a recording index any more; kept it as \(aside) and started a new one"
                }
            }
            for track in tracks { merged.upsert(track) }
            try FileOps.replaceAtomically(path, with: merged.encoded())
            return warning
        }
    }
}
