import CGtk
import Foundation
import OtonSupport

/// How `oton window` ends: 0 closed, 2 a usage error, 5 no display to open a window on.
public enum WindowExit {
    public static let usage: Int32 = 2
    public static let noDisplay: Int32 = 5

    /// Whether GTK reaches a display (Wayland or X11); false, said in one line, when not.
    @MainActor
    public static func displayReachable() -> Bool {
        if gtk_init_check() != 0 { return true }
        let environment = ProcessInfo.processInfo.environment
        let tried = ["WAYLAND_DISPLAY", "DISPLAY"].compactMap { name in environment[name].map { "\(name)=\($0)" } }
        let line =
            tried.isEmpty
            ? tr("no display: neither WAYLAND_DISPLAY nor DISPLAY is set; run `oton window` in a desktop session")
            : tr("no display: cannot open {displays}; run `oton window` in a desktop session", ["displays": tried.joined(separator: ", ")])
        FileHandle.standardError.write(Data(("oton window: " + line + "\n").utf8))
        return false
    }
}
