import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The access token: 128 random bits as 32 hex digits, generated on first start and kept in
/// `<data_dir>/token`, mode 0600. A file of the wrong shape or with looser permissions is refused
/// with what to do, never silently replaced (it may be a mistake worth seeing).
enum TokenStore {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func loadOrCreate(directory: String) throws -> String {
        let path = directory + "/token"
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "\(path) is not a regular file; remove it to get a new token") }
            guard info.st_mode & 0o077 == 0 else {
                throw Failure(
                    description:
                        "\(path) can be read by others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it, or remove it to get a new token")
            }
            let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard text.count >= 32, text.allSatisfy(\.isHexDigit) else {
                throw Failure(description: "\(path) does not hold a token (32 or more hex digits); remove it to get a new one")
            }
            return text
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array((token + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            unlink(path)
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return token
    }
}
