import Foundation
import OtonSupport
import XCTest

@testable import OtonWindow

/// Where "Record this station" records: the music folder's `oton`, the music folder being $XDG_MUSIC_DIR,
/// else the one user-dirs.dirs names, else $HOME/Music — $HOME, not the home the passwd entry names.
final class WindowRecordingFolderTests: XCTestCase {
    /// A config folder of its own (none has a user-dirs.dirs unless the test writes one).
    private func configFolder(userDirs: String? = nil) throws -> String {
        let folder = NSTemporaryDirectory() + "oton-music-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        if let userDirs { try userDirs.write(toFile: folder + "/user-dirs.dirs", atomically: true, encoding: .utf8) }
        return folder
    }

    func testXDGMusicDirWhenSetElseHomesMusic() throws {
        let config = try configFolder()
        XCTAssertEqual(
            StationRecorder.folder(environment: ["HOME": "/home/listener", "XDG_MUSIC_DIR": "/srv/music", "XDG_CONFIG_HOME": config]), "/srv/music/oton")
        XCTAssertEqual(StationRecorder.folder(environment: ["HOME": "/home/listener", "XDG_CONFIG_HOME": config]), "/home/listener/Music/oton")
        // A relative XDG_MUSIC_DIR counts as unset, as every XDG variable does.
        XCTAssertEqual(
            StationRecorder.folder(environment: ["HOME": "/home/listener", "XDG_MUSIC_DIR": "music", "XDG_CONFIG_HOME": config]),
            "/home/listener/Music/oton")
    }

    func testUserDirsNamesTheMusicFolderWhenTheVariableIsNotSet() throws {
        let config = try configFolder(userDirs: "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_MUSIC_DIR=\"$HOME/Musik\"\n")
        XCTAssertEqual(StationRecorder.folder(environment: ["HOME": "/home/listener", "XDG_CONFIG_HOME": config]), "/home/listener/Musik/oton")
        XCTAssertEqual(
            StationRecorder.folder(environment: ["HOME": "/home/listener", "XDG_CONFIG_HOME": config, "XDG_MUSIC_DIR": "/srv/music"]), "/srv/music/oton",
            "the variable comes first")
        let absolute = try configFolder(userDirs: "XDG_MUSIC_DIR=\"/data/music/\"\n")
        XCTAssertEqual(StationRecorder.folder(environment: ["HOME": "/home/listener", "XDG_CONFIG_HOME": absolute]), "/data/music/oton")
        // A value neither under $HOME nor absolute names nothing.
        let odd = try configFolder(userDirs: "XDG_MUSIC_DIR=\"music\"\n")
        XCTAssertEqual(StationRecorder.folder(environment: ["HOME": "/home/listener", "XDG_CONFIG_HOME": odd]), "/home/listener/Music/oton")
    }
}
