import Foundation
import OtonTestSupport
import PluginAPI
import XCTest

/// scripts/install puts oton in the application grid: a desktop entry that desktop-file-validate
/// passes, AppStream metainfo that appstreamcli passes (no network), the icons, and oton-window.
final class DesktopEntryTests: XCTestCase {
    func testInstalledDesktopEntryMetainfoAndIconsValidate() throws {
        let directory = try TemporaryDirectory(self)
        let prefix = directory.file("pre fix")  // a space: Exec= must quote the path
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        environment["XDG_DATA_HOME"] = directory.file("xdg")
        let install = try runProcess(
            TestPaths.root + "/scripts/install", ["--prefix", prefix, "--from", TestPaths.products],
            environment: environment)
        XCTAssertEqual(install.status, 0, install.stderr)

        // The one id (OTON_DESKTOP_APP_ID) names what is installed: MPRIS's DesktopEntry points here.
        let id = OTON_DESKTOP_APP_ID
        XCTAssertEqual(id, "org.oton.Oton")
        let desktop = prefix + "/share/applications/\(id).desktop"
        let metainfo = prefix + "/share/metainfo/\(id).metainfo.xml"
        for installed in [
            desktop, metainfo, prefix + "/bin/oton-window",
            prefix + "/share/icons/hicolor/scalable/apps/org.oton.Oton.svg",
            prefix + "/share/icons/hicolor/symbolic/apps/org.oton.Oton-symbolic.svg",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: installed), "missing \(installed)")
        }
        let validate = try runProcess("/usr/bin/desktop-file-validate", [desktop])
        XCTAssertEqual(validate.status, 0, validate.stdout + validate.stderr)
        XCTAssertEqual(validate.stdout + validate.stderr, "", "no warnings either")
        let appstream = try runProcess("/usr/bin/appstreamcli", ["validate", "--no-net", metainfo])
        XCTAssertEqual(appstream.status, 0, appstream.stdout + appstream.stderr)

        let entry = try String(contentsOfFile: desktop, encoding: .utf8)
        XCTAssertTrue(entry.contains("\nExec=\"\(prefix)/bin/oton\" window\n"), "Exec= runs the installed oton's window: \(entry)")
        XCTAssertTrue(entry.contains("\nIcon=\(id)\n"), entry)
        let appstreamID = try String(contentsOfFile: metainfo, encoding: .utf8)
        XCTAssertTrue(appstreamID.contains("<id>\(id)</id>"), "the metainfo's id is the desktop file's")
        // The icons are SVG pictures that draw (rsvg-convert is librsvg, which GTK's icon loader uses), not blank.
        for icon in ["scalable/apps/org.oton.Oton.svg", "symbolic/apps/org.oton.Oton-symbolic.svg"] {
            let png = directory.file("icon.png")
            let drawn = try runProcess("/usr/bin/rsvg-convert", ["-w", "64", "-h", "64", prefix + "/share/icons/hicolor/" + icon, "-o", png])
            XCTAssertEqual(drawn.status, 0, "\(icon): \(drawn.stderr)")
            let colours = try runProcess("/usr/bin/identify", ["-format", "%k", png]).stdout
            XCTAssertGreaterThan(Int(colours.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 2, "\(icon) draws something")
        }
    }
}
