import Foundation
import OtonSupport

/// Which plugins.json `oton stations add|remove|move|import` edits: `--config FILE`, else
/// `$OTON_CONFIG`, else the user's `$XDG_CONFIG_HOME/oton/plugins.json` (default `~/.config`),
/// created from the built-in default when missing. `./plugins.json` is never edited.
public enum EditableConfigLocation {
    public struct Choice: Equatable, Sendable {
        public var path: String
        /// The file did not exist and was written from the built-in default just now.
        public var created: Bool
        /// The file oton used until now, when creating the user's file takes its place.
        public var replacesInUse: String?
    }

    public static func choose(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(StationsEditError) -> Choice {
        if let explicit { return Choice(path: explicit, created: false) }
        if let named = environment["OTON_CONFIG"], !named.isEmpty { return Choice(path: named, created: false) }
        guard let path = XDGPaths(environment: environment).userConfigFile else {
            throw .noUserFile(reason: "neither XDG_CONFIG_HOME nor HOME is set")
        }
        var info = stat()
        if lstat(path, &info) == 0 { return Choice(path: path, created: false) }
        let inUse = currentDirectory + "/plugins.json"
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try AtomicFileWriter.write(Data(BuiltInConfig.text.utf8), to: path)
        } catch let failure as AtomicFileWriter.Failure {
            throw .write(failure)
        } catch {
            throw .noUserFile(reason: "cannot create \((path as NSString).deletingLastPathComponent): \(error.localizedDescription)")
        }
        return Choice(path: path, created: true, replacesInUse: FileManager.default.fileExists(atPath: inUse) ? inUse : nil)
    }
}
