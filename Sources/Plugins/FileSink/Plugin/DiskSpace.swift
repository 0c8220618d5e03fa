#if canImport(Glibc)
    import Glibc
#endif

/// Free space for unprivileged writers on the filesystem holding `path`, from statvfs(3).
enum DiskSpace {
    static func available(at path: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}
