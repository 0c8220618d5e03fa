import Foundation
import XCTest

/// A home of the test's own on which no systemd user manager runs (this machine, CI): `oton schedule`
/// and `oton alarm` write their units into `units` and print the crontab line instead. English text.
public struct HomeWithoutUserManager {
    public let environment: [String: String]
    /// `$XDG_CONFIG_HOME/systemd/user` of this home.
    public let units: String

    public init(_ testCase: XCTestCase) throws {
        let home = try TemporaryDirectory(testCase).path
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["HOME"] = home
        environment["XDG_RUNTIME_DIR"] = home + "/run"  // no systemd/private socket there: no manager
        environment["LANG"] = "C"
        environment["LANGUAGE"] = nil
        environment["LC_ALL"] = nil
        environment["SUDO_USER"] = nil
        self.environment = environment
        units = home + "/config/systemd/user"
        // The stations the alarm and schedule tests name (`alarm add` refuses one that does not resolve).
        try FileManager.default.createDirectory(atPath: home + "/config/oton", withIntermediateDirectories: true)
        try
            #"{"stations": [{"name": "Oton FM", "url": "https://example.invalid/oton.mp3"}, {"name": "Jazz 24", "url": "https://example.invalid/jazz.mp3"}], "plugins": []}"#
            .write(toFile: home + "/config/oton/plugins.json", atomically: true, encoding: .utf8)
    }
}
