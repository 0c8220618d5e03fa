import ArtworkLogic
import FileSinkLogic
import Foundation
import HistoryLogic
import MetricsLogic
import NowPlayingLogic
import OtonJSON
import ShareLogic
import SleepTimerLogic
import SnapcastLogic
import TrayLogic
import WebRemoteLogic
import XCTest

/// Every bundled plugin's "config" reader (each in its plugin's Logic): the repository's
/// plugins.json, every setting at its limits, values of the wrong kind and misspelt keys.
final class PluginConfigTests: XCTestCase {
    private func refusal(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            try body()
            XCTFail("expected the config to be refused", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    /// The configs the repository ships are read by the plugins' own readers without an error.
    func testEveryConfigInTheRepositoryPluginsJSONIsAccepted() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try JSONValue.parse(Data(contentsOf: root.appendingPathComponent("plugins.json")))
        guard case let .array(plugins)? = document["plugins"] else { return XCTFail("plugins.json has no plugins") }
        let readers: [String: (String) throws -> Void] = [
            "org.oton.sleep-timer": { _ = try SleepTimerConfig.parse($0) },
            "org.oton.share": { _ = try ShareConfig.parse($0) },
            "org.oton.artwork": { _ = try ArtworkConfig.parse($0) },
            "org.oton.now-playing": { _ = try NowPlayingConfig.parse($0) },
            "org.oton.history": { _ = try HistoryConfig.parse($0) },
            "org.oton.file-sink": { _ = try FileSinkSettings.parse($0) },
            "org.oton.web-remote": { _ = try WebRemoteConfig.parse($0) },
            "org.oton.metrics": { _ = try MetricsConfig.parse($0) },
            "org.oton.snapcast": { _ = try SnapcastConfig.parse($0) },
            "org.oton.tray": { _ = try TrayConfig.parse($0) },
        ]
        var checked: Set<String> = []
        for plugin in plugins {
            guard let id = plugin["id"]?.stringValue, let read = readers[id] else { continue }
            XCTAssertNoThrow(try read((plugin["config"] ?? .object([:])).jsonText), id)
            checked.insert(id)
        }
        XCTAssertEqual(checked, Set(readers.keys), "every bundled plugin is listed in plugins.json")
    }

    func testSleepTimerSettings() throws {
        let settings = try SleepTimerConfig.parse(#"{"fade_seconds": 2.5, "action": "quit", "presets_minutes": [60, 5, 1440]}"#)
        XCTAssertEqual(settings, SleepTimerModel.Settings(fadeMilliseconds: 2500, action: .quit, presetsMinutes: [5, 60, 1440]))
        XCTAssertEqual(try SleepTimerConfig.parse("{}"), SleepTimerModel.Settings())
        XCTAssertEqual(
            refusal { _ = try SleepTimerConfig.parse(#"{"fade_seconds": true}"#) }, "config.fade_seconds must be a number from 0 to 600, not true",
            "a boolean is not a number (JSONSerialization let true through as 1)")
        XCTAssertTrue(refusal { _ = try SleepTimerConfig.parse(#"{"presets_minutes": []}"#) }.hasPrefix("config.presets_minutes must be a list of 1 to 20"))
        XCTAssertTrue(refusal { _ = try SleepTimerConfig.parse(#"{"presets_minutes": [1441]}"#) }.contains("item 0 is 1441"))
        XCTAssertTrue(refusal { _ = try SleepTimerConfig.parse(#"{"presets_minutes": [1.5]}"#) }.contains("item 0 is 1.5"))
        XCTAssertThrowsError(try SleepTimerConfig.parse(#"{"presets_minutes": \#(Array(1 ... 21))}"#))
        XCTAssertEqual(
            refusal { _ = try SleepTimerConfig.parse(#"{"fade_second": 5}"#) },
            "config.fade_second is not a sleep-timer setting; known: action, fade_seconds, presets_minutes")
    }

    func testShareSettings() throws {
        let settings = try ShareConfig.parse(
            #"{"template": "{title}", "services": [{"name": "X", "url": "https://x.example/?q={query}"}], "clipboard": false}"#)
        XCTAssertEqual(settings.template, ShareTemplate("{title}"))
        XCTAssertEqual(settings.services, [ShareService(name: "X", urlTemplate: "https://x.example/?q={query}")])
        XCTAssertFalse(settings.clipboard)
        XCTAssertEqual(try ShareConfig.parse("{}"), ShareSettings())
        XCTAssertEqual(
            refusal { _ = try ShareConfig.parse(#"{"services": [{"name": "A", "url": "https://a/{query}"}, {"name": "B", "url": "javascript:{query}"}]}"#) },
            "config.services[1] needs an http(s) \"url\" containing {query}")
        XCTAssertEqual(refusal { _ = try ShareConfig.parse(#"{"services": [{"url": "https://a/{query}"}]}"#) }, "config.services[0] needs a \"name\"")
        XCTAssertTrue(refusal { _ = try ShareConfig.parse(#"{"template": ""}"#) }.hasPrefix("config.template must be a non-empty string"))
        XCTAssertThrowsError(try ShareConfig.parse(#"{"template": "\#(String(repeating: "é", count: 1001))"}"#))
        let many = Array(repeating: #"{"name": "A", "url": "https://a/{query}"}"#, count: 21).joined(separator: ",")
        XCTAssertEqual(refusal { _ = try ShareConfig.parse(#"{"services": [\#(many)]}"#) }, "config.services lists 21 services; the limit is 20")
    }

    func testNowPlayingSettings() throws {
        let config = try NowPlayingConfig.parse(#"{"mpris": false, "notifications": false, "notification_timeout_ms": -1, "skip_patterns": []}"#)
        XCTAssertFalse(config.mpris)
        XCTAssertFalse(config.notifications)
        XCTAssertEqual(config.notificationTimeoutMilliseconds, -1)
        XCTAssertEqual(config.skipPatterns, [])
        XCTAssertTrue(config.inhibitSleep, "sleep is held off while playing unless the config says not")
        XCTAssertFalse(try NowPlayingConfig.parse(#"{"inhibit_sleep": false}"#).inhibitSleep)
        XCTAssertEqual(refusal { _ = try NowPlayingConfig.parse(#"{"inhibit_sleep": 1}"#) }, "config.inhibit_sleep must be true or false, not 1")
        XCTAssertEqual(try NowPlayingConfig.parse(#"{"notification_timeout_ms": 3600000}"#).notificationTimeoutMilliseconds, 3_600_000)
        XCTAssertEqual(
            refusal { _ = try NowPlayingConfig.parse(#"{"notification_timeout_ms": 1.5}"#) },
            "config.notification_timeout_ms must be -1 (server default), 0 (never) or up to 3600000, not 1.5")
        XCTAssertThrowsError(try NowPlayingConfig.parse(#"{"notification_timeout_ms": 3600001}"#))
        XCTAssertThrowsError(try NowPlayingConfig.parse(#"{"notification_timeout_ms": 99999999999999999999}"#), "no trap on a number beyond Int32 or Int")
        XCTAssertTrue(refusal { _ = try NowPlayingConfig.parse(#"{"skip_patterns": ["jingle", null]}"#) }.hasSuffix("item 1 is null"))
        XCTAssertEqual(refusal { _ = try NowPlayingConfig.parse(#"{"mpris": "yes"}"#) }, #"config.mpris must be true or false, not "yes""#)
    }

    func testWebRemoteSettings() throws {
        let config = try WebRemoteConfig.parse(#"{"listen": "0.0.0.0:9000", "max_connections": 2, "max_event_clients": 1024}"#)
        XCTAssertEqual(config.listen, ListenAddress(host: "0.0.0.0", port: 9000))
        XCTAssertEqual(config.limits.maximumConnections, 2)
        XCTAssertEqual(config.limits.maximumEventClients, 1024)
        XCTAssertEqual(try WebRemoteConfig.parse("{}").listen, WebRemoteConfig.defaultListen)
        XCTAssertTrue(refusal { _ = try WebRemoteConfig.parse(#"{"listen": "localhost"}"#) }.hasPrefix("config.listen must be ADDRESS:PORT"))
        XCTAssertTrue(refusal { _ = try WebRemoteConfig.parse(#"{"listen": "::1:80"}"#) }.hasPrefix("config.listen must be"))
        XCTAssertTrue(refusal { _ = try WebRemoteConfig.parse(#"{"listen": "127.0.0.1:65536"}"#) }.hasPrefix("config.listen must be ADDRESS:PORT"))
        XCTAssertEqual(
            refusal { _ = try WebRemoteConfig.parse(#"{"max_connections": 1}"#) }, "config.max_connections must be a whole number from 2 to 1024, not 1")
        XCTAssertEqual(refusal { _ = try WebRemoteConfig.parse("[]") }, #"config must be a JSON object, e.g. {"listen": "127.0.0.1:8765"}, not []"#)
    }

    func testArtworkSettings() throws {
        let config = try ArtworkConfig.parse(#"{"cache_dir": "/var/cache/x", "cache_max_mb": 1, "timeout_seconds": 0.1, "status_retry_seconds": [1, 60]}"#)
        XCTAssertEqual(config.cacheDirectory, "/var/cache/x")
        XCTAssertEqual(config.cacheMaxBytes, 1 << 20)
        XCTAssertEqual(config.timeoutMilliseconds, 100)
        XCTAssertEqual(try ArtworkConfig.parse("{}"), ArtworkConfig())
        XCTAssertEqual(refusal { _ = try ArtworkConfig.parse(#"{"cache_dir": "cache"}"#) }, #"config.cache_dir must be an absolute path, not "cache""#)
        XCTAssertEqual(refusal { _ = try ArtworkConfig.parse(#"{"cache_max_mb": 0.5}"#) }, "config.cache_max_mb must be a number from 1 to 10000, not 0.5")
        XCTAssertEqual(refusal { _ = try ArtworkConfig.parse(#"{"timeout_seconds": 1e400}"#) }.hasPrefix("config is not valid JSON"), true)
        XCTAssertThrowsError(try ArtworkConfig.parse(#"{"status_retry_seconds": [1,1,1,1,1,1,1,1,1,1,1]}"#), "11 delays")
        XCTAssertEqual(config.resolvedCacheDirectory(hostCacheDirectory: "/c/oton/plugins/org.oton.artwork"), "/var/cache/x")
        XCTAssertEqual(ArtworkConfig().resolvedCacheDirectory(hostCacheDirectory: "/c/oton/plugins/org.oton.artwork"), "/c/oton/artwork")
    }

    func testHistorySettingsKeepSecretsOutOfTheConfig() throws {
        let config = try HistoryConfig.parse(
            #"{"database": "~/h.sqlite", "listenbrainz": {"token_env": "LB", "url": "http://127.0.0.1:1"}, "lastfm": {"enabled": false}}"#,
            home: "/home/u")
        XCTAssertEqual(config.database, "/home/u/h.sqlite")
        XCTAssertEqual(config.listenBrainz?.token, SecretReference(environmentVariable: "LB"))
        XCTAssertEqual(config.listenBrainz?.url, "http://127.0.0.1:1")
        XCTAssertNil(config.lastFM, "\"enabled\": false turns the service off")
        XCTAssertTrue(
            refusal { _ = try HistoryConfig.parse(#"{"listenbrainz": {"token": "abc"}}"#) }
                .hasPrefix(#"config.listenbrainz.token: secrets are never read from plugins.json; use "token_env""#))
        XCTAssertEqual(
            refusal { _ = try HistoryConfig.parse(#"{"lastfm": {"api_key_env": "K", "urll": "x"}}"#) },
            "config.lastfm.urll is not a lastfm setting; known: api_key_env, api_key_file, api_secret_env, api_secret_file, auth_url, enabled, session_key_file, url"
        )
        XCTAssertEqual(
            refusal { _ = try HistoryConfig.parse(#"{"min_live_seconds": "30"}"#) }, #"config.min_live_seconds must be a number from 0 to 3600, not "30""#)
        XCTAssertEqual(
            refusal { _ = try HistoryConfig.parse(#"{"jingle_patterns": ["("]}"#) }, #"config.jingle_patterns: "(" is not a valid regular expression"#)
        XCTAssertEqual(
            try HistoryConfig.parse(#"{"retry_initial_seconds": 10, "retry_max_seconds": 1}"#).retryMaximumSeconds, 10,
            "a maximum below the first delay is raised to it")
    }

    func testFileSinkNumbersAtTheirLimitsAreShownAsWritten() throws {
        XCTAssertEqual(try FileSinkSettings.parse(#"{"directory": "/r", "max_mb": 1048576}"#).maxBytes, 1 << 40)
        XCTAssertEqual(
            refusal { _ = try FileSinkSettings.parse(#"{"directory": "/r", "max_mb": 12345678901234567890}"#) },
            "config.max_mb must be a number of megabytes from 0 (no limit) to 1048576 (1 TiB), not 12345678901234567890")
        XCTAssertEqual(refusal { _ = try FileSinkSettings.parse(#"{"directory": ""}"#) }, #"config.directory must be the folder recordings go to, not """#)
        XCTAssertEqual(refusal { _ = try FileSinkSettings.parse("{}") }, "config.directory is required: the folder recordings go to")
        XCTAssertEqual(refusal { _ = try FileSinkSettings.parse(#"{"directory": "/r", "split": 1}"#) }, "config.split must be true or false, not 1")
        XCTAssertEqual(
            refusal { _ = try FileSinkSettings.parse(#"{"directory": "/r", "index": "/etc/passwd"}"#) },
            #"config.index must be a file name relative to config.directory, not "/etc/passwd""#)
        XCTAssertEqual(
            refusal { _ = try FileSinkSettings.parse(#"{"directory": "/r", "partial": "maybe"}"#) },
            #"config.partial must be "incomplete", "drop" or "keep", not "maybe""#)
    }
}
