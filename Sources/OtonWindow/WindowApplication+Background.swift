import Foundation
import OtonSupport

/// "Keep playing when the window closes" (the tray plugin's `keep_playing`, docs/window.md): the
/// preference's switch, and what closing the window does with the player.
extension WindowApplication {
    /// The plugin's id in plugins.json, where the preference is kept.
    static let trayPlugin = "org.oton.tray"

    /// Closing: the player goes on when its tray plugin says "keep playing" (and shows its notification),
    /// else the player the window started stops, as it always did. Quit (Ctrl+Q) always stops it.
    func leavePlayer() {
        guard let link else { return }
        if !quitting, !playing.playerGone, link.keepsPlayingAfterClose(config: arguments.config, seconds: 5) {
            link.leaveOwnPlayerPlaying()
        } else {
            link.stopOwnPlayer()
        }
    }

    /// What the preference shows: the running plugin's setting (`background --format json`); nil when the player has no tray plugin.
    func showKeepPlaying() {
        link?.ask(["background", "--format", "json"]) { reply, _ in
            let text = reply?["text"]?.stringValue
            let on = text.flatMap { try? JSONValue.parse(Data($0.utf8)) }?["keep_playing"]?.boolValue
            MainThread.run { [weak self] in self?.preferences?.show(keepPlaying: on) }
        }
    }

    /// The switch moved: plugins.json keeps it (`oton plugins set org.oton.tray keep_playing …`, as the CLI
    /// user would) and the running player follows at once (`background on|off`).
    func setKeepPlaying(_ on: Bool) {
        var words = ["plugins", "set", Self.trayPlugin, "keep_playing", on ? "true" : "false"]
        if let config = arguments.config { words += ["--config", config] }
        link?.send(["background", on ? "on" : "off"]) { problem in
            guard let problem else { return }
            MainThread.run { [weak self] in self?.preferences?.say(problem) }
        }
        DispatchQueue.global().async { [words] in
            let run = OtonCommand.run(words)
            guard run.status != 0 else { return }
            MainThread.run { [weak self] in self?.preferences?.say(run.message) }
        }
    }
}
