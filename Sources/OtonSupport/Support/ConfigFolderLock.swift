import Foundation

/// Serialises edits of one plugins.json between processes: an exclusive flock on the folder
/// that holds the file (the file itself is replaced by rename, so its own lock would not hold).
/// Two `oton stations add` at once then both land instead of one overwriting the other.
public enum ConfigFolderLock {
    /// Runs `body` holding the lock of `path`'s folder; without a lock when the folder cannot be opened.
    public static func holding<T, Failure: Error>(_ path: String, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let target = AtomicFileWriter.resolvedTarget(path)
        let folder = (target as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }  // closing releases the lock
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        return try body()
    }
}
