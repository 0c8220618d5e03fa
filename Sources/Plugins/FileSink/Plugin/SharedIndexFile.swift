import FileSinkLogic
import Foundation

/// The recording folder's index.json and its journal (index.jsonl), which
/// several processes may share. Every change to a track is one line appended
/// to the journal in one write (O_APPEND), so an update costs the same with
/// ten tracks in the folder as with ten thousand. The journal is merged into
/// index.json, which is replaced atomically (temporary file, fsync, rename),
/// when a recording starts and stops and whenever the journal has grown past
/// index.json (so merging costs O(1) per track on average). Everything happens
/// under a lock on the folder, and the journal is opened by name each time,
/// so a merge by one process never loses a line of another. Other sessions'
/// entries are never dropped.
struct SharedIndexFile {
    let path: String
    let journalPath: String
    let directory: String
    let streamURL: String?
    /// The journal is merged once it is larger than this and larger than index.json.
    let journalFloor: Int

    /// Refuses a file that exists and is not an index (it may be someone's data).
    init(directory: String, name: String, streamURL: String?, journalFloor: Int = 256 << 10) throws {
        self.directory = directory
        self.streamURL = streamURL
        self.journalFloor = journalFloor
        path = directory + "/" + name
        journalPath = Self.journalPath(forIndex: path)
        if let data = FileManager.default.contents(atPath: path), (try? RecordingIndex.decode(data)) == nil {
            throw PartFile.Failure(description: "\(path) exists but is not a recording index; move it away or set config.index")
        }
    }

    /// index.json → index.jsonl; any other name gets ".jsonl" added.
    static func journalPath(forIndex path: String) -> String {
        path.hasSuffix(".json") ? path + "l" : path + ".jsonl"
    }

    /// At the start of a recording: merges what a recorder that ended abruptly left in the journal,
    /// and marks entries left `recording` by a process that is gone as `interrupted` (their .part
    /// stays). Returns how many were marked, and a warning to log, if any.
    func open(session: String) throws -> (interrupted: Int, warning: String?) {
        try FileOps.withDirectoryLock(directory) { try merge(markingInterruptedExcept: session) }
    }

    /// The newest state of one track: one line appended to the journal. Returns a warning to log, if any.
    func record(_ track: RecordingIndex.Track) throws -> String? {
        let line = try RecordingIndex.journalLine(track)
        return try FileOps.withDirectoryLock(directory) {
            let journalSize = try append(line)
            let indexSize = Self.size(of: path) ?? 0
            guard journalSize > max(journalFloor, indexSize) else { return nil }
            return try merge(markingInterruptedExcept: nil).warning
        }
    }

    /// At the end of a recording: merges the journal into index.json and removes it.
    func close() throws -> String? {
        try FileOps.withDirectoryLock(directory) { try merge(markingInterruptedExcept: nil).warning }
    }

    /// The process exists and is an oton (a pid can be reused).
    static func isRecorderAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return name.hasPrefix("oton")
    }

    private static func size(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Appends `line` in one write; a line cut short by a killed writer is ended first, so it
    /// cannot swallow this one. Returns the journal's size afterwards. Called under the lock.
    private func append(_ line: Data) throws -> Int {
        let fd = Glibc.open(journalPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PartFile.Failure(description: "cannot write \(journalPath): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        var info = stat()
        var bytes = line
        if fstat(fd, &info) == 0, info.st_size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, info.st_size - 1) == 1, last != 0x0A { bytes.insert(0x0A, at: 0) }
        }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
        guard written == bytes.count else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "short write"
            // Never leave half a line behind: cut the journal back to where it was.
            _ = ftruncate(fd, info.st_size)
            throw PartFile.Failure(description: "cannot write \(journalPath): \(reason)")
        }
        return Int(info.st_size) + bytes.count
    }

    /// index.json plus the journal, written atomically as the new index.json; then the journal goes.
    /// Called under the lock.
    private func merge(markingInterruptedExcept session: String?) throws -> (interrupted: Int, warning: String?) {
        var warnings: [String] = []
        var index = RecordingIndex(streamURL: streamURL)
        if let data = FileManager.default.contents(atPath: path) {
            if let existing = try? RecordingIndex.decode(data) {
                index = existing
            } else {
                let aside = path + ".unreadable-\(Int(Date().timeIntervalSince1970))"
                rename(path, aside)
                warnings.append("\(path) was not a recording index any more; kept it as \(aside) and started a new one")
            }
        }
        let journal = FileManager.default.contents(atPath: journalPath)
        if let journal {
            let skipped = index.apply(journal: journal)
            if skipped > 0 {
                warnings.append("skipped \(skipped) unreadable line(s) of \(journalPath) (left by a recorder that ended mid-write)")
            }
        }
        index.forgetDropped()
        var interrupted = 0
        if let session {
            let before = index.tracks.filter { $0.status == .interrupted }.count
            if index.markInterrupted(except: session, isAlive: Self.isRecorderAlive) {
                interrupted = index.tracks.filter { $0.status == .interrupted }.count - before
            }
        }
        if journal != nil || interrupted > 0 {
            try FileOps.replaceAtomically(path, with: index.encoded())
            // Only now: until index.json holds its lines, the journal is what has them.
            if journal != nil { unlink(journalPath) }
        }
        return (interrupted, warnings.isEmpty ? nil : warnings.joined(separator: "; "))
    }
}
