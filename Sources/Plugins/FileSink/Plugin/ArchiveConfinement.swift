import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a path that a file in the output folder names (a ledger's `file`, a marker's `part`
/// and `ledger`, an upload's segment) may be renamed, uploaded or deleted: anyone who can write
/// in the folder can plant such a file, so only paths inside the folder are trusted — their
/// folder, with its symbolic links and `..` resolved (realpath), is the output folder or under
/// it, and the path itself is a regular file (lstat), never a symbolic link, or not there yet.
enum ArchiveConfinement {
    static func isInside(_ path: String, root: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        guard path.hasPrefix("/"), !name.isEmpty, name != ".", name != "..", !path.hasSuffix("/"),
            let folder = realPath((path as NSString).deletingLastPathComponent), let realRoot = realPath(root),
            folder == realRoot || folder.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
        else { return false }
        var info = stat()
        if lstat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFREG }
        return errno == ENOENT
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
