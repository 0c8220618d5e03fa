#if canImport(Glibc)
import Glibc
#endif

/// Refuses plugin files that someone else could have replaced: a library
/// (or the directory holding it) writable by other users, or owned by
/// someone other than the current user or root.
public enum PluginFileSecurity {
    /// nil when safe, else the reason.
    public static func problem(with path: String) -> String? {
        if let problem = problem(of: path, isDirectory: false) { return problem }
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return problem(of: directory.isEmpty ? "/" : directory, isDirectory: true)
    }

    private static func problem(of path: String, isDirectory: Bool) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot stat \(path): \(String(cString: strerror(errno)))" }
        let what = isDirectory ? "its directory \(path)" : "the file"
        let me = geteuid()
        if info.st_uid != me && info.st_uid != 0 {
            return "\(what) belongs to another user (uid \(info.st_uid))"
        }
        let mode = info.st_mode
        if mode & S_IWOTH != 0 && !(isDirectory && mode & S_ISVTX != 0) {
            return "\(what) is writable by every user (mode \(String(mode & 0o7777, radix: 8)))"
        }
        if mode & S_IWGRP != 0 && !isPrivateGroup(info.st_gid, owner: info.st_uid) {
            return "\(what) is writable by group \(info.st_gid), which has other members (mode \(String(mode & 0o7777, radix: 8)))"
        }
        return nil
    }

    /// A user-private group: the owner's primary group with no listed members.
    private static func isPrivateGroup(_ gid: gid_t, owner: uid_t) -> Bool {
        guard let user = getpwuid(owner), user.pointee.pw_gid == gid else { return false }
        guard let group = getgrgid(gid) else { return false }
        return group.pointee.gr_mem.pointee == nil
    }
}
