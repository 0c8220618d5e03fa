import FileSinkLogic
import XCTest

/// Archive mode's keys in the file sink's config: what is accepted, and what is refused with the key named.
final class ArchiveSettingsTests: XCTestCase {
    func testTheArchiveKeys() throws {
        let settings = try FileSinkSettings.parse(
            #"{"directory": "/srv/a", "archive": "1h", "archive_tz": "local", "keep": "30d", "keep_size_mb": 512, "tracks": false}"#)
        let archive = try XCTUnwrap(settings.archive)
        XCTAssertEqual(archive.period.seconds, 3600)
        XCTAssertEqual(archive.period.zone, .local(.current))
        XCTAssertEqual(archive.naming.template.text, ArchiveNaming.standard)
        XCTAssertEqual(archive.retention, ArchiveRetention(maxAgeNanoseconds: 30 * 86_400 * 1_000_000_000, maxBytes: 512 << 20))
        XCTAssertFalse(settings.tracks)
        XCTAssertNil(try FileSinkSettings.parse(#"{"directory": "/srv/a"}"#).archive, "off unless asked")
        XCTAssertTrue(
            try FileSinkSettings.parse(#"{"directory": "/a", "archive": "1h", "when_full": "oldest"}"#).archive?.retention.removeOldestWhenFull ?? false)
    }

    func testWrongArchiveSettingsAreRefusedWithTheKeyNamed() {
        let cases: [(String, String)] = [
            (#"{"directory": "/a", "archive": "7m"}"#, "config.archive must be a whole number of seconds that divides a day"),
            (#"{"directory": "/a", "archive": "60"}"#, "config.archive must be"),
            (#"{"directory": "/a", "keep": "30d"}"#, "config.keep applies to archive mode only"),
            (#"{"directory": "/a", "tracks": false}"#, "config.tracks false needs archive"),
            (#"{"directory": "/a", "archive": "1h", "format": "wav"}"#, "config.archive records the encoded stream"),
            (
                #"{"directory": "/a", "archive": "1h", "archive_template": "{artist}.{ext}"}"#,
                "config.archive_template cannot be used: unknown placeholder {artist}"
            ),
            (#"{"directory": "/a", "archive": "1h", "keep": "10s"}"#, "config.keep must be an age from 1m"),
            (#"{"directory": "/a", "archive": "1h", "archive_tz": "mars"}"#, "config.archive_tz must be"),
            (#"{"directory": "/a", "when_full": "oldest"}"#, "config.when_full applies to archive mode only"),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try FileSinkSettings.parse(json), json) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "\(json): \(error)")
            }
        }
    }
}
