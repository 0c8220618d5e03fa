import Foundation

/// The one owner of where oton keeps files, by the XDG Base Directory rule: a variable counts only
/// when it is an absolute path (the specification says to ignore a relative one), else the default
/// under $HOME. Every file oton or a plugin writes is found from here: plugins.json and the wishlist
/// (config), plugin data, kept wishes and history (data), the last search and the timeshift rings (cache), each station's
/// measured loudness and the last volume (state), control sockets (runtime), systemd user units (config), the window's
/// station recordings (music). Nil when neither the variable nor HOME is set.
public struct XDGPaths: Sendable {
    private let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    public var configHome: String? { base("XDG_CONFIG_HOME", default: ".config") }
    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    public var dataHome: String? { base("XDG_DATA_HOME", default: ".local/share") }
    /// `$XDG_CACHE_HOME`, else `~/.cache`.
    public var cacheHome: String? { base("XDG_CACHE_HOME", default: ".cache") }
    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    public var stateHome: String? { base("XDG_STATE_HOME", default: ".local/state") }
    /// `$XDG_RUNTIME_DIR` (no default: the specification leaves it to the system).
    public var runtimeDirectory: String? { absolute("XDG_RUNTIME_DIR") }

    /// oton's own folders under each base.
    public var otonConfig: String? { configHome.map { $0 + "/oton" } }
    public var otonData: String? { dataHome.map { $0 + "/oton" } }
    public var otonCache: String? { cacheHome.map { $0 + "/oton" } }
    public var otonState: String? { stateHome.map { $0 + "/oton" } }

    /// The user's plugins.json: `$XDG_CONFIG_HOME/oton/plugins.json`.
    public var userConfigFile: String? { otonConfig.map { $0 + "/plugins.json" } }
    /// Each station's measured loudness, for the leveller (docs/levelling.md): `$XDG_STATE_HOME/oton/loudness.json`.
    public var loudnessFile: String? { otonState.map { $0 + "/loudness.json" } }
    /// The timeshift rings of running players (docs/timeshift.md): `$XDG_CACHE_HOME/oton/timeshift`, a folder per ring.
    public var timeshiftFolder: String? { otonCache.map { $0 + "/timeshift" } }
    /// The volume the listener set last, for the next `oton play`: `$XDG_STATE_HOME/oton/volume.json`.
    public var volumeFile: String? { otonState.map { $0 + "/volume.json" } }
    /// The user's own now-playing provider rules, read after oton's (docs/titles.md): `$XDG_CONFIG_HOME/oton/now-playing.json`.
    public var nowPlayingRulesFile: String? { otonConfig.map { $0 + "/now-playing.json" } }
    /// Which provider rule gave each titleless station its titles, found by trying: `$XDG_STATE_HOME/oton/now-playing-found.json`.
    public var nowPlayingFoundFile: String? { otonState.map { $0 + "/now-playing-found.json" } }
    /// systemd's user unit folder: `$XDG_CONFIG_HOME/systemd/user`.
    public var systemdUserUnits: String? { configHome.map { $0 + "/systemd/user" } }

    /// The music folder: `$XDG_MUSIC_DIR`, else the one `$XDG_CONFIG_HOME/user-dirs.dirs` names (a desktop's
    /// translated "Musik"), else `~/Music`. Home is always $HOME, never the passwd entry's.
    public var musicFolder: String? {
        if let folder = absolute("XDG_MUSIC_DIR") { return folder }
        if let file = configHome.map({ $0 + "/user-dirs.dirs" }), let text = try? String(contentsOfFile: file, encoding: .utf8),
            let folder = XDGUserDirs.folder("XDG_MUSIC_DIR", in: text, home: home)
        {
            return folder
        }
        return home.map { $0 + "/Music" }
    }
    /// Where the window's "Record this station" records (`oton record --out`): the music folder's `oton`.
    public var stationRecordings: String? { musicFolder.map { $0 + "/oton" } }

    /// The home folder, when HOME is an absolute path.
    public var home: String? { absolute("HOME") }

    private func absolute(_ name: String) -> String? {
        environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    private func base(_ name: String, default relative: String) -> String? {
        absolute(name) ?? home.map { $0 + "/" + relative }
    }
}
