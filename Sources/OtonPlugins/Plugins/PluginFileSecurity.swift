#if canImport(Glibc)
    import Glibc
#endif

/// The rule a plugin library's path must pass before anything opens it
/// (docs/plugin-guide.md#file-permissions), modelled on ssh's StrictModes:
/// nobody but you and root can replace the file or any directory on the way
/// to it, and the file is a regular file (a FIFO would hang dlopen).
///
/// `SecurePathWalk` resolves the path one component at a time, following
/// symbolic links like the kernel does, and asks this rule about every step:
/// a directory it enters, a link it follows and the file it ends on.
public enum PluginFileSecurity {
    /// A library that passed: where it really is and which inode was checked.
    public struct CheckedFile: Equatable, Sendable {
        public let realPath: String
        public let device: UInt64
        public let inode: UInt64
    }

    /// Walks `path` and checks every step. Throws `.notFound`, `.unsafeFile` or `.notRegularFile`.
    public static func check(_ path: String) throws(PluginLoadError) -> CheckedFile {
        var walk = SecurePathWalk(path: path)
        return try walk.run()
    }

    /// Opens the checked file without following links or blocking, and confirms it is still
    /// the regular file the walk saw. Returns the descriptor; the caller closes it.
    package static func openChecked(_ file: CheckedFile, path: String) throws(PluginLoadError) -> Int32 {
        let fd = open(file.realPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw .unsafeFile(path: path, reason: "cannot open \(file.realPath): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .notRegularFile(path: path, type: fileType(info.st_mode))
        }
        guard UInt64(info.st_dev) == file.device, UInt64(info.st_ino) == file.inode else {
            close(fd)
            throw .unsafeFile(path: path, reason: "\(file.realPath) was replaced while it was being checked")
        }
        return fd
    }

    /// Who may write an entry besides its owner: nil when nobody, else a phrase for messages.
    package static func writableByOthers(_ info: stat) -> String? {
        let mode = info.st_mode
        let octal = String(mode & 0o7777, radix: 8)
        if mode & S_IWOTH != 0 { return "writable by every user (mode \(octal))" }
        if mode & S_IWGRP != 0 && !isPrivateGroup(info.st_gid, owner: info.st_uid) {
            return "writable by group \(info.st_gid), which has other members (mode \(octal))"
        }
        return nil
    }

    /// Owned by the effective user or by root.
    package static func isTrustedOwner(_ uid: uid_t) -> Bool {
        uid == 0 || uid == geteuid()
    }

    package static func isSticky(_ info: stat) -> Bool {
        info.st_mode & S_ISVTX != 0
    }

    package static func fileType(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }

    /// A user-private group: the owner's primary group with no listed members.
    private static func isPrivateGroup(_ gid: gid_t, owner: uid_t) -> Bool {
        guard let user = getpwuid(owner), user.pointee.pw_gid == gid else { return false }
        guard let group = getgrgid(gid) else { return false }
        return group.pointee.gr_mem.pointee == nil
    }
}
