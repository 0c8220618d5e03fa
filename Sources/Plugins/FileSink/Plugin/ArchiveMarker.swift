import FileSinkLogic
import Foundation
import OtonJSON

#if canImport(Glibc)
    import Glibc
#endif

/// The marker an archive recorder keeps in its output folder while a segment is open
/// (`.archive-open-PID.json`: the `.part` and its ledger), and what the next start does with a
/// marker whose process is gone: the `.part` gets its final name (nothing received is deleted; it
/// ends on a whole unit or within the last one) and its ledger an `interrupted` line.
enum ArchiveMarker {
    static let prefix = ".archive-open-"

    static func name(pid: pid_t) -> String { prefix + String(pid) + ".json" }

    /// `NAME.mp3` → `NAME.jsonl`.
    static func ledgerPath(forSegment path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        return (ext.isEmpty ? path : String(path.dropLast(ext.count + 1))) + ".jsonl"
    }

    static func write(_ marker: String, part: String, ledger: String) throws {
        let text = JSONValue.object(["part": .string(part), "ledger": .string(ledger)]).jsonText
        try FileOps.replaceAtomically(marker, with: Data(text.utf8))
    }

    /// Appends one line in one write (O_APPEND); a failed write is cut back, never half a line.
    static func appendLine(_ line: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw PartFile.Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        let before = fstat(fd, &info) == 0 ? info.st_size : 0
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
        guard written == bytes.count else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "short write"
            _ = ftruncate(fd, before)
            throw PartFile.Failure(description: "cannot write \(path): \(reason)")
        }
    }

    /// Finishes the segments of recorders that are gone: how many were interrupted, and every
    /// segment a marker named that now has its final name (those interrupted, and one a recorder
    /// finished but died before it let go of the marker), for the upload journal. A marker that
    /// names a file outside the folder or a symbolic link (``ArchiveConfinement``) is removed and
    /// nothing else is done with it: `refused` lists what it named and the marker, for the log.
    static func finishAbandoned(in directory: String) -> (interrupted: Int, segments: [String], refused: [(path: String, marker: String)]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return (0, [], []) }
        var count = 0
        var segments: [String] = []
        var refused: [(path: String, marker: String)] = []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".json") {
            let pidText = name.dropFirst(prefix.count).dropLast(".json".count)
            guard let pid = pid_t(pidText), pid != getpid(), !isAlive(pid) else { continue }
            let marker = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: marker), let value = try? JSONValue.parse(data),
                let part = value["part"]?.stringValue, let ledger = value["ledger"]?.stringValue
            else {
                unlink(marker)
                continue
            }
            let final = String(part.dropLast(".part".count))
            // What a recorder writes: NAME.EXT.part and NAME.jsonl beside it, both inside the folder.
            let refusedPath =
                part.hasSuffix(".part") && ledger == ledgerPath(forSegment: final)
                ? [part, final, ledger].first { !ArchiveConfinement.isInside($0, root: directory) } : part
            if let outside = refusedPath {
                refused.append((outside, marker))
                unlink(marker)
                continue
            }
            var info = stat()
            if stat(part, &info) == 0 {
                _ = try? FileOps.sync(part)
                if let named = try? FileOps.linkWithoutReplacing(part, to: final) { segments.append(named) }
                try? appendLine(ArchiveLedger.interruptedLine(bytes: UInt64(info.st_size), markedAt: Int64(Date().timeIntervalSince1970 * 1e9)), to: ledger)
                count += 1
            } else if access(final, F_OK) == 0 {
                segments.append(final)
            }
            unlink(marker)
        }
        return (count, segments, refused)
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
