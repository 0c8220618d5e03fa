import Foundation

/// Where a bare file name from plugins.json ("liboton_history.so") is looked for, after the
/// directory of plugins.json itself, in this order:
/// 1. beside the executable (where `swift build` puts the bundled plugins);
/// 2. the install's plugin directory, `<prefix>/lib/oton/plugins` for an `oton` in `<prefix>/bin`
///    (where `scripts/install` puts them);
/// 3. the user's plugin directory, `$XDG_DATA_HOME/oton/plugins` (default `~/.local/share/oton/plugins`).
public enum PluginSearchPath {
    /// The directories for an executable in `executableDirectory` and the given environment.
    public static func directories(
        executableDirectory: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        var result: [String] = []
        if let executableDirectory {
            result.append(executableDirectory)
            let prefix = (executableDirectory as NSString).deletingLastPathComponent
            result.append((prefix == "/" ? "" : prefix) + "/lib/oton/plugins")
        }
        result.append(userDirectory(environment: environment))
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }

    /// `$XDG_DATA_HOME/oton/plugins` (an absolute XDG_DATA_HOME only), else `~/.local/share/oton/plugins`.
    public static func userDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        PluginManager.Directories.fromEnvironment(environment).dataHome + "/plugins"
    }

    /// The directories for the running executable.
    public static var standard: [String] { directories(executableDirectory: PluginManager.executableDirectory) }
}
