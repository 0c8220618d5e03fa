#if canImport(Glibc)
    import Glibc
#endif

/// Resolves a plugin path component by component with `lstat`, following
/// symbolic links itself, and applies `PluginFileSecurity`'s rule to every
/// step. Nothing is opened: a FIFO or device is refused before anyone reads it.
///
/// The rule for a step from directory D into entry E (a directory, a link or the file):
/// - D is owned by you or root (checked when D itself was entered; `/` first);
/// - if D is writable by others (the world, or a group with other members), D must be
///   sticky and E owned by you or root: in a sticky directory only E's owner can
///   rename or replace E, which is what makes `/tmp/yours/…` safe;
/// - a directory E must be owned by you or root;
/// - the final E must be a regular file owned by you or root and writable by nobody else.
package struct SecurePathWalk {
    /// As the kernel allows (MAXSYMLINKS).
    package static let maximumLinks = 40

    package let path: String
    private var pending: [Substring] = []
    /// The real path of the directory reached so far; it passed the rule.
    private var current = "/"
    private var currentInfo = stat()
    private var links = 0

    package init(path: String) {
        self.path = path
    }

    package mutating func run() throws(PluginLoadError) -> PluginFileSecurity.CheckedFile {
        var absolute = path
        if !absolute.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else { throw refused("cannot read the current directory") }
            absolute = String(cString: cwd) + "/" + path
            free(cwd)
        }
        pending = Self.components(absolute)
        currentInfo = try lstatOrThrow("/")
        try checkDirectory("/", currentInfo)
        while !pending.isEmpty {
            let name = pending.removeFirst()
            if name == "." { continue }
            if name == ".." {
                current = Self.parent(of: current)
                currentInfo = try lstatOrThrow(current)
                continue
            }
            let candidate = current == "/" ? "/" + name : current + "/" + name
            let info = try lstatOrThrow(candidate)
            try checkStep(into: candidate, info)
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                try follow(candidate)
            case S_IFDIR:
                try checkDirectory(candidate, info)
                current = candidate
                currentInfo = info
            default:
                guard pending.isEmpty else { throw refused("\(candidate) is not a directory") }
                return try finish(candidate, info)
            }
        }
        throw .notRegularFile(path: path, type: "a directory")
    }

    /// The sticky rule: may someone other than you or root replace `entry` in the current directory?
    private func checkStep(into entry: String, _ info: stat) throws(PluginLoadError) {
        guard let how = PluginFileSecurity.writableByOthers(currentInfo) else { return }
        guard PluginFileSecurity.isSticky(currentInfo) else {
            throw refused("the directory \(current) is \(how) and not sticky, so anyone could replace \(entry)")
        }
        guard PluginFileSecurity.isTrustedOwner(info.st_uid) else {
            throw refused("\(entry) belongs to another user (uid \(info.st_uid)) inside the shared directory \(current)")
        }
    }

    private func checkDirectory(_ directory: String, _ info: stat) throws(PluginLoadError) {
        guard PluginFileSecurity.isTrustedOwner(info.st_uid) else {
            throw refused("the directory \(directory) belongs to another user (uid \(info.st_uid))")
        }
    }

    private mutating func follow(_ link: String) throws(PluginLoadError) {
        links += 1
        guard links <= Self.maximumLinks else { throw refused("more than \(Self.maximumLinks) symbolic links") }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 0 else { throw refused("cannot read the link \(link): \(String(cString: strerror(errno)))") }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        pending = Self.components(target) + pending
        if target.hasPrefix("/") {
            current = "/"
            currentInfo = try lstatOrThrow("/")
        }
    }

    private func finish(_ file: String, _ info: stat) throws(PluginLoadError) -> PluginFileSecurity.CheckedFile {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .notRegularFile(path: path, type: PluginFileSecurity.fileType(info.st_mode))
        }
        guard PluginFileSecurity.isTrustedOwner(info.st_uid) else {
            throw refused("the file \(file) belongs to another user (uid \(info.st_uid))")
        }
        if let how = PluginFileSecurity.writableByOthers(info) {
            throw refused("the file \(file) is \(how)")
        }
        return PluginFileSecurity.CheckedFile(realPath: file, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private func lstatOrThrow(_ entry: String) throws(PluginLoadError) -> stat {
        var info = stat()
        guard lstat(entry, &info) == 0 else {
            let code = errno
            if code == ENOENT { throw .notFound(path: path, searched: [path]) }
            throw refused("cannot stat \(entry): \(String(cString: strerror(code)))")
        }
        return info
    }

    private func refused(_ reason: String) -> PluginLoadError {
        .unsafeFile(path: path, reason: reason)
    }

    private static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func parent(of directory: String) -> String {
        guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { return "/" }
        return String(directory[..<slash])
    }
}
