import Foundation
import OtonCrashGuard
import OtonSupport

/// The in-process plugins that crashed oton (`$XDG_STATE_HOME/oton/crashed-plugins`): the crash guard
/// appends the crash's line ("oton: plugin ID (FILE) crashed in filter: SIGSEGV") from its signal
/// handler; the next start reads it and goes without those plugins, saying so each time, until
/// `oton plugins enable ID` takes the plugin's lines out. One line per crash; only this type reads
/// or rewrites the file.
public struct PluginCrashRecord: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The user's record, nil without a state folder (no HOME and no XDG_STATE_HOME).
    public static var standard: PluginCrashRecord? {
        XDGPaths().otonState.map { PluginCrashRecord(path: $0 + "/crashed-plugins") }
    }

    /// The crashed plugins' ids, each with the line of its last crash. Lines of another shape are
    /// passed over; the file is read up to 64 KiB (a line per crash of a plugin the user kept on).
    public func crashed() -> [String: String] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [:] }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        var result: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if let id = Self.id(in: line) { result[id] = String(line) }
        }
        return result
    }

    /// The plugin's id in a crash line: "oton: plugin ID (FILE) crashed in CALL: SIGNAL".
    static func id(in line: Substring) -> String? {
        let head = "oton: plugin "
        guard line.hasPrefix(head), line.contains(") crashed in ") else { return nil }
        let rest = line.dropFirst(head.count)
        guard let end = rest.range(of: " (") else { return nil }
        let id = rest[..<end.lowerBound]
        return id.isEmpty ? nil : String(id)
    }

    /// Takes the plugin's crashes out of the record: the next start loads it again. False when none was there.
    public func enable(_ id: String) throws -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
        let lines = text.split(separator: "\n")
        let kept = lines.filter { Self.id(in: $0) != id }
        guard kept.count != lines.count else { return false }
        let rest = kept.map { $0 + "\n" }.joined()
        try rest.write(toFile: path, atomically: true, encoding: .utf8)
        return true
    }

    /// From now on a crash of an in-process plugin is written here (the folder is made first).
    /// The C string is never freed: the signal handler may read it at any time.
    public func activate() {
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        PluginCrashCulprit.installOnce()
        oton_crash_guard_record_to(UnsafePointer(strdup(path)!))
    }
}
