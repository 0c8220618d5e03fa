import FileSinkLogic
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file being written: created exclusively (never overwriting), written in
/// whole units, truncated back to the last whole unit if a write fails, and
/// fsynced before it is renamed.
final class PartFile {
    /// Where the file is now (it may be renamed while open, when its track's title arrives).
    private(set) var path: String
    private var descriptor: Int32
    private(set) var size: UInt64 = 0

    struct Failure: Error, CustomStringConvertible {
        let description: String
        var code: Int32 = 0
    }

    /// Creates `path` (which must not exist yet) with mode 0644.
    init(creating path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)  // read back: a FLAC header gets its length
        guard fd >= 0 else {
            let code = errno
            throw Failure(description: "cannot create \(path): \(String(cString: strerror(code)))", code: code)
        }
        self.path = path
        descriptor = fd
    }

    /// Writes all of `bytes`, or none of them (the file is cut back on failure).
    func write(_ bytes: [UInt8]) throws {
        guard descriptor >= 0 else { throw Failure(description: "\(path) is closed") }
        var written = 0
        let error: Int32? = bytes.withUnsafeBytes { raw -> Int32? in
            while written < raw.count {
                let result = Glibc.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += result
            }
            return nil
        }
        if let error {
            _ = ftruncate(descriptor, off_t(size))  // never leave half a frame behind
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(error)))")
        }
        size += UInt64(bytes.count)
    }

    /// Replaces bytes already written (a header's sizes, a reserved tag region) in place;
    /// the file does not grow, so this works on a full disk too.
    func overwrite(_ bytes: [UInt8], at offset: Int) throws {
        guard descriptor >= 0 else { throw Failure(description: "\(path) is closed") }
        guard UInt64(offset + bytes.count) <= size else { throw Failure(description: "\(path): overwrite past the end") }
        let result = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
        guard result == bytes.count else {
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(result < 0 ? errno : EIO)))")
        }
    }

    /// The file's first `count` bytes (fewer when it is shorter).
    func head(_ count: Int) throws -> [UInt8] {
        guard descriptor >= 0 else { throw Failure(description: "\(path) is closed") }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, 0) }
        guard read >= 0 else { throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        return Array(bytes.prefix(read))
    }

    /// Gives the open file a new name: `base` + `suffix`, or `base (2)` … + `suffix` when taken. Never replaces a file.
    /// `caseBlind`: a name that differs only in case from one in the folder is taken too (portable names).
    func rename(toBase base: String, suffix: String, caseBlind: Bool = false) throws {
        for counter in 1...10_000 {
            let candidate = FileOps.numberedPath(base, counter) + suffix
            if caseBlind && FileOps.takenInAnotherCase(candidate, own: path) { continue }
            if link(path, candidate) == 0 {
                unlink(path)
                path = candidate
                return
            }
            guard errno == EEXIST else {
                throw Failure(description: "cannot name \(candidate): \(String(cString: strerror(errno)))")
            }
        }
        throw Failure(description: "too many files named like \(base)")
    }

    /// Flushes to the disk (unless `sync` is false: the caller makes it durable another way,
    /// e.g. a tagged copy that is fsynced, or `FileOps.sync` before naming it) and closes. Safe to call twice.
    func close(sync: Bool = true) {
        guard descriptor >= 0 else { return }
        if sync { _ = fsync(descriptor) }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}

/// File operations with the guarantees recording needs.
enum FileOps {
    /// mkdir -p with 0755.
    static func makeDirectories(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    }

    /// True when `path` (existing) really lies inside `root` once symbolic links are resolved.
    static func isInside(_ path: String, root: String) -> Bool {
        guard let real = realPath(path), let realRoot = realPath(root) else { return false }
        return real == realRoot || real.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Flushes a closed file's data to the disk.
    static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PartFile.Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw PartFile.Failure(description: "cannot flush \(path) to the disk: \(String(cString: strerror(errno)))") }
    }

    /// Gives `source` the name `target`, or `target (2)` … when taken, never replacing a file.
    /// Returns the name used. `source` is gone afterwards.
    /// `caseBlind`: a name that differs only in case from one in the folder is taken too (portable names).
    static func linkWithoutReplacing(_ source: String, to target: String, caseBlind: Bool = false) throws -> String {
        for counter in 1...10_000 {
            let candidate = numberedPath(target, counter)
            if caseBlind && takenInAnotherCase(candidate, own: source) { continue }
            if link(source, candidate) == 0 {
                unlink(source)
                return candidate
            }
            guard errno == EEXIST else {
                throw PartFile.Failure(description: "cannot name \(candidate): \(String(cString: strerror(errno)))")
            }
        }
        throw PartFile.Failure(description: "too many files named like \(target)")
    }

    /// Creates a new exclusive file `base`, `base (2)` … ending in `suffix`.
    /// `caseBlind`: a name that differs only in case from one in the folder is taken too (portable names).
    static func createUnique(_ base: String, suffix: String, caseBlind: Bool = false) throws -> PartFile {
        var lastError: Error = PartFile.Failure(description: "cannot create \(base)\(suffix)")
        for counter in 1...10_000 {
            if caseBlind && takenInAnotherCase(numberedPath(base, counter) + suffix) { continue }
            do {
                return try PartFile(creating: numberedPath(base, counter) + suffix)
            } catch let failure as PartFile.Failure where failure.code == EEXIST {
                lastError = failure
            }
        }
        throw lastError
    }

    /// True when the folder of `path` holds its name in another case (``CaseBlindNames``);
    /// `own` (a file being renamed) does not count.
    static func takenInAnotherCase(_ path: String, own: String? = nil) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        let ownName = own.flatMap { ($0 as NSString).deletingLastPathComponent == directory ? ($0 as NSString).lastPathComponent : nil }
        return CaseBlindNames.isTaken((path as NSString).lastPathComponent, among: names, own: ownName)
    }

    static func numberedPath(_ path: String, _ counter: Int) -> String {
        guard counter > 1 else { return path }
        let name = (path as NSString).lastPathComponent
        let directory = (path as NSString).deletingLastPathComponent
        let ext = (name as NSString).pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        return directory + "/" + stem + " (\(counter))" + (ext.isEmpty ? "" : "." + ext)
    }

    /// Runs `body` holding an exclusive flock on the folder itself (no lock file to leave behind).
    static func withDirectoryLock<T>(_ directory: String, _ body: () throws -> T) throws -> T {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw PartFile.Failure(description: "cannot open \(directory): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw PartFile.Failure(description: "cannot lock \(directory): \(String(cString: strerror(errno)))") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Writes `data` to a temporary file beside `path`, fsyncs it and renames it over `path`.
    static func replaceAtomically(_ path: String, with data: Data) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PartFile.Failure(description: "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let result = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if result < 0 { if errno == EINTR { continue }; failure = errno; return }
                written += result
            }
        }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        Glibc.close(fd)
        guard failure == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(failure != 0 ? failure : errno))
            unlink(temporary)
            throw PartFile.Failure(description: "cannot write \(path): \(reason)")
        }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 { _ = fsync(directory); Glibc.close(directory) }
    }

    /// Copies the whole of `source` to the end of the open file `target`.
    static func append(contentsOf source: String, to target: PartFile) throws {
        try forEachChunk(of: source) { try target.write($0) }
    }

    /// Reads `source` from start to end in pieces of up to 1 MiB.
    static func forEachChunk(of source: String, _ body: ([UInt8]) throws -> Void) throws {
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PartFile.Failure(description: "cannot read \(source): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0 { if errno == EINTR { continue }; throw PartFile.Failure(description: "cannot read \(source): \(String(cString: strerror(errno)))") }
            if count == 0 { return }
            try body(Array(chunk[0..<count]))
        }
    }
}
