import FileSinkLogic
import XCTest

/// Archive upload's pure parts: the s3:// address and the object URLs, where credentials and the
/// region come from, the retry pauses, the journal's entries, and the config keys.
final class ArchiveUploadLogicTests: XCTestCase {
    func testTheAddressAndTheObjectURLs() throws {
        let destination = try XCTUnwrap(S3Destination("s3://radio-archive/one/two/"))
        XCTAssertEqual(destination.bucket, "radio-archive")
        XCTAssertEqual(destination.prefix, "one/two")
        XCTAssertEqual(destination.key("FM/2026/11/27/a.mp3"), "one/two/FM/2026/11/27/a.mp3")
        XCTAssertEqual(destination.appending("Jazz FM").text, "s3://radio-archive/one/two/Jazz FM")
        XCTAssertEqual(S3Destination("s3://bucket")?.key("a.mp3"), "a.mp3")
        // Path-style on a given endpoint, virtual-hosted on AWS (path-style there for a dotted bucket); keys percent-encoded once.
        XCTAssertEqual(
            destination.url(key: "Jazz FM/ä+b.mp3", endpoint: "http://127.0.0.1:9000/", region: "eu-west-1"),
            "http://127.0.0.1:9000/radio-archive/Jazz%20FM/%C3%A4%2Bb.mp3")
        XCTAssertEqual(destination.url(key: "k.mp3", endpoint: nil, region: "eu-west-1"), "https://radio-archive.s3.eu-west-1.amazonaws.com/k.mp3")
        XCTAssertEqual(S3Destination("s3://a.b.c/x")?.url(key: "k", endpoint: nil, region: "us-east-1"), "https://s3.us-east-1.amazonaws.com/a.b.c/k")
        for wrong in ["bucket/prefix", "s3://", "s3://UPPER/x", "s3://ab", "s3://-bucket/x", "http://bucket/x", "s3://bu_cket"] {
            XCTAssertNil(S3Destination(wrong), wrong)
        }
    }

    func testCredentialsAndRegionWhereTheAWSToolsLook() throws {
        let files = [
            "/home/u/.aws/credentials":
                "[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = s1\n\n[archive]\n# the archive's key\naws_access_key_id=AKARCHIVE\naws_secret_access_key = s2\naws_session_token = t2\n",
            "/home/u/.aws/config": "[default]\nregion = eu-central-1\n[profile archive]\nregion = ap-south-1\n",
        ]
        let read: (String) -> String? = { files[$0] }
        // The environment wins.
        let fromEnvironment = try AWSEnvironment.resolve(
            environment: [
                "HOME": "/home/u", "AWS_ACCESS_KEY_ID": "AKENV", "AWS_SECRET_ACCESS_KEY": "senv", "AWS_SESSION_TOKEN": "tenv",
                "AWS_DEFAULT_REGION": "us-west-2", "AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
            ], readFile: read)
        XCTAssertEqual(
            fromEnvironment,
            AWSEnvironment(
                accessKey: "AKENV", secretKey: "senv", sessionToken: "tenv", region: "us-west-2",
                endpoint: "http://127.0.0.1:9000", source: "the environment"))
        XCTAssertEqual(
            try AWSEnvironment.resolve(
                environment: [
                    "HOME": "/home/u", "AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S",
                    "AWS_REGION": "eu-north-1", "AWS_DEFAULT_REGION": "us-west-2",
                ], readFile: read
            ).region,
            "eu-north-1", "AWS_REGION before AWS_DEFAULT_REGION")
        // Then the credentials file, for AWS_PROFILE, with the config file's region.
        let fromProfile = try AWSEnvironment.resolve(environment: ["HOME": "/home/u", "AWS_PROFILE": "archive"], readFile: read)
        XCTAssertEqual(fromProfile.accessKey, "AKARCHIVE")
        XCTAssertEqual(fromProfile.secretKey, "s2")
        XCTAssertEqual(fromProfile.sessionToken, "t2")
        XCTAssertEqual(fromProfile.region, "ap-south-1")
        XCTAssertEqual(fromProfile.source, "/home/u/.aws/credentials [archive]")
        let fromDefault = try AWSEnvironment.resolve(environment: ["HOME": "/home/u"], readFile: read)
        XCTAssertEqual([fromDefault.accessKey, fromDefault.region], ["AKDEFAULT", "eu-central-1"])
        XCTAssertEqual(
            try AWSEnvironment.resolve(
                environment: ["HOME": "/nobody", "AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"],
                readFile: read
            ).region, "us-east-1")
        // Nothing anywhere: the error says where to put them, and names no secret.
        XCTAssertThrowsError(try AWSEnvironment.resolve(environment: ["HOME": "/home/u", "AWS_PROFILE": "none"], readFile: read)) { error in
            XCTAssertEqual("\(error)", "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add them to /home/u/.aws/credentials [none]")
        }
        let signing = "\(fromEnvironment)"
        XCTAssertFalse(signing.contains("senv"))
    }

    func testRetriesWaitLongerEachTimeUpToTheCap() {
        XCTAssertEqual(UploadBackoff.seconds(afterFailure: 1, jitter: 0), 1)
        XCTAssertEqual(UploadBackoff.seconds(afterFailure: 2, jitter: 0), 2)
        XCTAssertEqual(UploadBackoff.seconds(afterFailure: 5, jitter: 0), 16)
        XCTAssertEqual(UploadBackoff.seconds(afterFailure: 30, jitter: 0), 60)
        XCTAssertEqual(UploadBackoff.seconds(afterFailure: 3, jitter: 1), 6)
        XCTAssertEqual(UploadBackoff.seconds(afterFailure: 1000, jitter: 1, cap: 20), 30)
    }

    func testTheJournalNamesOneEntryPerSegmentAndReadsItBack() {
        let a = UploadJournal.entryName("2026/11/27/2026-11-27T14-00-00Z.mp3")
        XCTAssertEqual(a, UploadJournal.entryName("2026/11/27/2026-11-27T14-00-00Z.mp3"))
        XCTAssertNotEqual(a, UploadJournal.entryName("2026/11/27/2026-11-27T15-00-00Z.mp3"))
        XCTAssertTrue(a.hasSuffix(".json"))
        XCTAssertEqual(a.count, 21)
        XCTAssertEqual(
            UploadJournal.entry(UploadJournal.entryText(segment: "FM/a b.mp3", queuedUnix: 1)),
            UploadJournal.Entry(segment: "FM/a b.mp3", segmentStored: false))
        XCTAssertEqual(UploadJournal.entry(UploadJournal.entryText(segment: "a.mp3", queuedUnix: 1, segmentStored: true))?.segmentStored, true)
        XCTAssertNil(UploadJournal.entry(#"{"segment": "../../etc/passwd"}"#), "never outside the folder")
        XCTAssertNil(UploadJournal.entry(#"{"segment": "/etc/passwd"}"#))
        XCTAssertNil(UploadJournal.entry("not json"))
    }

    func testTheUploadKeys() throws {
        let upload = try XCTUnwrap(
            FileSinkSettings.parse(
                #"{"directory": "/a", "archive": "1h", "upload": "s3://b-1/p", "upload_endpoint": "http://127.0.0.1:9000", "upload_delete": true}"#
            ).archive?.upload)
        XCTAssertEqual(upload, UploadSettings(destination: S3Destination("s3://b-1/p")!, endpoint: "http://127.0.0.1:9000", deleteAfterUpload: true))
        let cases: [(String, String)] = [
            (#"{"directory": "/a", "upload": "s3://b-1/p"}"#, "config.upload applies to archive mode only"),
            (#"{"directory": "/a", "archive": "1h", "upload": "b-1/p"}"#, "config.upload must be s3://bucket/prefix"),
            (#"{"directory": "/a", "archive": "1h", "upload_delete": true}"#, "config.upload_delete applies to uploads only"),
            (
                #"{"directory": "/a", "archive": "1h", "upload": "s3://b-1", "upload_endpoint": "127.0.0.1:9000"}"#,
                "config.upload_endpoint must be an http:// or https:// address"
            ),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try FileSinkSettings.parse(json), json) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }
}
