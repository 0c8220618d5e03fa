import Foundation

/// Replaces a file so that a reader (or a crash, or SIGKILL) sees either the old bytes
/// or the new ones, never a mixture: a temporary file in the same folder, written and
/// fsynced, renamed over the target, then the folder fsynced. A symbolic link is
/// written through: its target is replaced and the link stays.
public enum AtomicFileWriter {
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Test hook: when set to a path, the writer creates that file after the temporary file is
    /// complete and waits (before the rename) until the file is removed. A test kills it meanwhile.
    public static let holdBeforeRenameVariable = "OTON_TEST_HOLD_BEFORE_RENAME"

    /// Writes `data` to `path`. The file keeps its permissions; a new one gets `newFileMode`.
    public static func write(_ data: Data, to path: String, newFileMode: mode_t = 0o644) throws(Failure) {
        let target = resolvedTarget(path)
        let directory = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        var info = stat()
        let mode = stat(target, &info) == 0 ? info.st_mode & 0o7777 : newFileMode
        let temporary = (directory.isEmpty ? "." : directory) + "/.\(name).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(path: path, reason: "cannot create a temporary file in \(directory): \(lastError())") }
        var complete = writeAll(fd, data)
        let syncFailed = complete && fsync(fd) != 0
        let error = lastError()
        fchmod(fd, mode)  // open() applied the umask
        close(fd)
        complete = complete && !syncFailed
        guard complete else {
            unlink(temporary)
            throw Failure(path: path, reason: "writing the temporary file failed (\(error)); the file was not changed")
        }
        holdForTest()
        guard rename(temporary, target) == 0 else {
            let reason = lastError()
            unlink(temporary)
            throw Failure(path: path, reason: "rename failed (\(reason)); the file was not changed")
        }
        let folder = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// The file a path names after following symbolic links (the path itself when it does not exist).
    package static func resolvedTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(path, &buffer) != nil else { return path }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
    }

    private static func holdForTest() {
        guard let marker = ProcessInfo.processInfo.environment[holdBeforeRenameVariable], !marker.isEmpty else { return }
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        while FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
