import Foundation
import OtonJSON

/// Reads a secret from an environment variable or a file. A file must be a
/// regular file that only its owner can read or write (mode 0600 or 0400):
/// anything else is refused with a message that says so. The secret's value
/// never appears in a message.
public enum SecretReader {
    /// An English message of the catalogues with `{placeholders}` and their values (``text(_:)`` translates it).
    public typealias Refused = CatalogueMessage

    /// The secret, nil when the reference names nothing that exists, or a refusal.
    public static func read(
        _ reference: SecretReference, what: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String? {
        if let name = reference.environmentVariable, let value = environment[name] {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { return trimmed }
        }
        guard let file = reference.file else { return nil }
        return try readFile(file, what: what)
    }

    /// Reads a secret file, refusing one that group or others may access.
    public static func readFile(_ file: String, what: String) throws -> String? {
        var info = stat()
        guard stat(file, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw Refused(N_("cannot read {what} file {file}: {reason}"), ["what": what, "file": file, "reason": String(cString: strerror(errno))])
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Refused(N_("{what} file {file} is not a regular file"), ["what": what, "file": file])
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw Refused(
                N_("{what} file {file} has mode {mode}; refusing it because others may read it (run: chmod 600 {file})"),
                ["what": what, "file": file, "mode": String(mode, radix: 8)])
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw Refused(N_("cannot read {what} file {file}"), ["what": what, "file": file])
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Writes a secret file with mode 0600 atomically (a temporary file, then rename).
    public static func writeFile(_ file: String, secret: String) throws {
        let directory = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let temporary = file + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Refused(N_("cannot write {file}: {reason}"), ["file": temporary, "reason": String(cString: strerror(errno))]) }
        let bytes = Array((secret + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, 0o600)
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, file) == 0 else {
            unlink(temporary)
            throw Refused(N_("cannot write {file}: {reason}"), ["file": file, "reason": String(cString: strerror(errno))])
        }
    }
}
