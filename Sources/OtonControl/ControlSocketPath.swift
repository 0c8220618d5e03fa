import Foundation
import OtonSupport

/// Where control sockets live: `$XDG_RUNTIME_DIR/oton/<instance>.sock`, else
/// `/tmp/oton-$UID/<instance>.sock`. The directory is ours and 0700, or it is refused.
public enum ControlSocketPath {
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = XDGPaths(environment: environment).runtimeDirectory { return runtime + "/oton" }
        return "/tmp/oton-\(getuid())"
    }

    public static func socket(instance: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        directory(environment: environment) + "/" + instance + ".sock"
    }

    /// Instance names become file names: [A-Za-z0-9._-], 1–64 characters, not starting with a dot.
    public static func isValidInstance(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) }
    }

    /// Creates the directory (0700) or checks the existing one: it must be a real directory
    /// owned by us and closed to others; one of ours with looser permissions is tightened.
    public static func prepare(_ directory: String) throws(Refused) {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw Refused(description: "cannot create \(directory): \(String(cString: strerror(errno)))")
            }
            guard lstat(directory, &info) == 0 else { throw Refused(description: "cannot read \(directory)") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Refused(description: "\(directory) is not a directory (a link or a file stands there); remove it")
        }
        guard info.st_uid == geteuid() else {
            throw Refused(description: "\(directory) belongs to another user (uid \(info.st_uid)); refusing to put a control socket there")
        }
        if info.st_mode & 0o077 != 0 { chmod(directory, 0o700) }
    }

    /// The sockets in the directory, by instance name.
    public static func instances(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let directory = directory(environment: environment)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".sock") }.map { String($0.dropLast(5)) }.sorted()
    }
}
