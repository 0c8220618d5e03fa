import Foundation
import HistoryLogic
import XCTest

/// The History plugin's plain logic: track boundaries, scrobble rules, the
/// services' request formats, retry delays, queries and output formats.
final class HistoryLogicTests: XCTestCase {
    private func track(
        _ tracker: inout ListeningTracker, _ sequence: UInt64, _ title: String?, artist: String? = "A",
        station: String = "Radio X", at seconds: Double, duration: Double? = nil
    ) -> [ListeningTracker.Effect] {
        var fields = ["sequence": String(sequence), "station": station]
        if let title { fields["title"] = title; fields["raw_title"] = [artist, title].compactMap { $0 }.joined(separator: " - ") }
        if let artist { fields["artist"] = artist }
        if let duration { fields["duration"] = String(duration) }
        return tracker.track(fields: fields, monoNanoseconds: Int64(seconds * 1e9), wallMicroseconds: 1_000_000_000_000 + Int64(seconds * 1e6))
    }

    func testANewSequenceEndsTheTrackAndPausesDoNotCount() throws {
        var tracker = ListeningTracker()
        XCTAssertEqual(track(&tracker, 1, "One", at: 0).count, 1)
        XCTAssertEqual(track(&tracker, 1, "One", at: 5), [], "the same track repeated changes nothing")
        _ = tracker.state("paused", monoNanoseconds: 10_000_000_000, wallMicroseconds: 0)
        _ = tracker.state("playing", monoNanoseconds: 70_000_000_000, wallMicroseconds: 0)
        let effects = track(&tracker, 2, "Two", at: 100)
        guard case let .ended(end) = effects.first else { return XCTFail("\(effects)") }
        XCTAssertEqual(end.secondsListened, 40, accuracy: 0.001, "100 s minus 60 s paused")
        XCTAssertTrue(end.endedByTitleChange)
        XCTAssertEqual(end.endedAtMicroseconds - end.start.startedAtMicroseconds, 100_000_000)
        guard case let .ended(stopped) = tracker.state("error", monoNanoseconds: 110_000_000_000, wallMicroseconds: 0).first else {
            return XCTFail("error ends the track")
        }
        XCTAssertFalse(stopped.endedByTitleChange)
        XCTAssertEqual(track(&tracker, 2, "Two", at: 120), [], "a replay of the ended track is not a new one")
    }

    func testStationNameArrivingAloneUpdatesTheTrackAndUntitledEventsAreNotTracks() {
        var tracker = ListeningTracker()
        XCTAssertEqual(track(&tracker, 1, nil, artist: nil, at: 0), [])
        XCTAssertNil(tracker.current)
        _ = track(&tracker, 1, "One", station: "", at: 1)
        let updated = track(&tracker, 1, "One", station: "Radio Y", at: 2)
        guard case let .updated(start) = updated.first else { return XCTFail("\(updated)") }
        XCTAssertEqual(start.station, "Radio Y")
    }

    func testJinglesAndAdverts() {
        let detector = JingleDetector(patterns: ["^ad(vert)?\\b", "jingle"])
        // The station's name, empty and dashes are the host's to judge (they never arrive as tracks).
        XCTAssertFalse(JingleDetector().isJingle(title: "Radio X", rawTitle: "Radio X", station: "radio x"))
        XCTAssertTrue(detector.isJingle(title: "Advert break", rawTitle: nil, station: nil))
        XCTAssertTrue(detector.isJingle(title: "Station JINGLE 3", rawTitle: nil, station: nil))
        XCTAssertFalse(detector.isJingle(title: "Adventure", rawTitle: "Band - Adventure", station: "Radio X"))
    }

    func testScrobbleRule() {
        let start = PlayStart(sequence: 1, artist: "A", title: "T", startedAtMicroseconds: 1_000_000_000_000)
        func end(_ seconds: Double, duration: Double? = nil, byTitle: Bool = true) -> PlayEnd {
            var s = start
            s.durationSeconds = duration
            return PlayEnd(start: s, endedAtMicroseconds: 0, secondsListened: seconds, endedByTitleChange: byTitle)
        }
        XCTAssertNotNil(ScrobbleRule.listen(for: end(30), minimumLiveSeconds: 30))
        XCTAssertNil(ScrobbleRule.listen(for: end(29.9), minimumLiveSeconds: 30))
        XCTAssertNil(ScrobbleRule.listen(for: end(300, byTitle: false), minimumLiveSeconds: 30), "live: only a title change ends a listen")
        XCTAssertNotNil(ScrobbleRule.listen(for: end(100, duration: 200, byTitle: false), minimumLiveSeconds: 30), "half of a known duration")
        XCTAssertNil(ScrobbleRule.listen(for: end(99, duration: 200), minimumLiveSeconds: 30))
        XCTAssertNotNil(ScrobbleRule.listen(for: end(240, duration: 1200), minimumLiveSeconds: 30), "four minutes of a long track")
        var jingle = end(100)
        jingle.start.isJingle = true
        XCTAssertNil(ScrobbleRule.listen(for: jingle, minimumLiveSeconds: 30))
        var noArtist = end(100)
        noArtist.start.artist = nil
        XCTAssertNil(ScrobbleRule.listen(for: noArtist, minimumLiveSeconds: 30))
    }

    func testListenBrainzBodiesAndOutcomes() throws {
        let listen = Listen(artist: "A", title: "T", listenedAt: 1_700_000_000, secondsListened: 61.4, originURL: "http://s/x")
        let now = try XCTUnwrap(
            JSONSerialization.jsonObject(with: ListenBrainzProtocol.body(listenType: "playing_now", listens: [listen], version: "1")) as? [String: Any])
        let nowItem = try XCTUnwrap((now["payload"] as? [[String: Any]])?.first)
        XCTAssertNil(nowItem["listened_at"])
        let single = try XCTUnwrap(
            JSONSerialization.jsonObject(with: ListenBrainzProtocol.body(listenType: "single", listens: [listen], version: "1")) as? [String: Any])
        let item = try XCTUnwrap((single["payload"] as? [[String: Any]])?.first)
        XCTAssertEqual(item["listened_at"] as? Int, 1_700_000_000)
        let info = try XCTUnwrap((item["track_metadata"] as? [String: Any])?["additional_info"] as? [String: Any])
        XCTAssertEqual(info["duration_played"] as? Int, 61)
        XCTAssertEqual(info["origin_url"] as? String, "http://s/x")
        XCTAssertEqual(ListenBrainzProtocol.endpoint(base: "http://h/"), "http://h/1/submit-listens")
        XCTAssertEqual(ListenBrainzProtocol.outcome(of: HTTPAnswer(status: 200)), .accepted)
        XCTAssertEqual(
            ListenBrainzProtocol.outcome(of: HTTPAnswer(status: 429, headers: ["x-ratelimit-reset-in": "7"])),
            .retry(after: 7, reason: "rate limited (HTTP 429)"))
        XCTAssertEqual(ListenBrainzProtocol.outcome(of: HTTPAnswer(status: 503)), .retry(after: nil, reason: "HTTP 503"))
        guard case .unauthorized = ListenBrainzProtocol.outcome(of: HTTPAnswer(status: 401)) else { return XCTFail() }
        guard case .rejected = ListenBrainzProtocol.outcome(of: HTTPAnswer(status: 400, body: Array(#"{"error":"bad"}"#.utf8))) else { return XCTFail() }
        XCTAssertEqual(ListenBrainzProtocol.pause(after: HTTPAnswer(status: 200, headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset-in": "3"])), 3)
    }

    /// The user name in auth.getSession's answer reaches the terminal: a hostile one cannot move the cursor or flip text.
    func testLastFMUserNamesLoseControlAndFormatCharacters() {
        XCTAssertEqual(LastFMProtocol.displayName("rj"), "rj")
        XCTAssertEqual(LastFMProtocol.displayName("Кюннэй"), "Кюннэй")
        XCTAssertEqual(LastFMProtocol.displayName("\u{1B}[2J\u{1B}]0;owned\u{07}eve\u{202E}gnp.exe"), "[2J]0;ownedevegnp.exe")
        XCTAssertEqual(LastFMProtocol.displayName(String(repeating: "x", count: 5000))?.count, 64)
        XCTAssertNil(LastFMProtocol.displayName("\u{1B}\u{07}  "))
        XCTAssertNil(LastFMProtocol.displayName(nil))
    }

    func testLastFMSignatureFormAndOutcomes() {
        // The signature text, seen through an identity "hash": sorted names, no format/callback, secret last.
        let text = LastFMProtocol.signature(
            [("method", "track.scrobble"), ("api_key", "K"), ("artist[0]", "Ä B"), ("format", "json")],
            secret: "S", md5: { $0 })
        XCTAssertEqual(text, "api_keyKartist[0]Ä Bmethodtrack.scrobbleS")
        let form = LastFMProtocol.signedForm([("track", "A&B = C")], secret: "S", md5: { _ in "sig" })
        XCTAssertEqual(form, "track=A%26B%20%3D%20C&api_sig=sig&format=json")
        XCTAssertEqual(LastFMProtocol.formDecode(form).map { $0.1 }, ["A&B = C", "sig", "json"])
        let listens = (0..<60).map { Listen(artist: "A", title: "T\($0)", listenedAt: Int64($0), secondsListened: 40) }
        let parameters = LastFMProtocol.scrobbleParameters(listens, apiKey: "K", sessionKey: "SK")
        XCTAssertEqual(parameters.filter { $0.0.hasPrefix("track[") }.count, 50, "at most 50 a batch")
        XCTAssertTrue(parameters.contains { $0 == ("chosenByUser[49]", "0") })
        func outcome(_ body: String) -> SubmissionOutcome { LastFMProtocol.outcome(of: HTTPAnswer(status: 200, body: Array(body.utf8))) }
        XCTAssertEqual(outcome(#"{"scrobbles":{}}"#), .accepted)
        guard case .retry = outcome(#"{"error": 11, "message": "offline"}"#), case .retry = outcome(#"{"error": 16, "message": "x"}"#),
            case let .unauthorized(message) = outcome(#"{"error": 9, "message": "Invalid session key"}"#),
            case .rejected = outcome(#"{"error": 6, "message": "Invalid parameters"}"#),
            case .retry = outcome("<html>")
        else { return XCTFail() }
        XCTAssertTrue(message.contains("oton lastfm login"))
    }

    func testRetryDelaysGrowAndHonourTheServer() {
        var schedule = RetrySchedule(initial: 2, maximum: 10)
        XCTAssertEqual((0..<5).map { _ in schedule.nextDelay() }, [2, 4, 8, 10, 10])
        XCTAssertEqual(schedule.nextDelay(requested: 30), 30)
        schedule.reset()
        XCTAssertEqual(schedule.nextDelay(), 2)
    }

    func testConfigRefusesPlainSecretsAndBadValues() throws {
        XCTAssertThrowsError(try HistoryConfig.parse(#"{"lastfm": {"api_secret": "x"}}"#))
        XCTAssertThrowsError(try HistoryConfig.parse(#"{"min_live_seconds": true}"#))
        XCTAssertThrowsError(try HistoryConfig.parse(#"{"jingle_patterns": ["("]}"#))
        let config = try HistoryConfig.parse(#"{"listenbrainz": {"token_file": "~/lb"}, "lastfm": {"enabled": false}}"#, home: "/home/u")
        XCTAssertEqual(config.listenBrainz?.token.file, "/home/u/lb")
        XCTAssertNil(config.lastFM)
        XCTAssertEqual(config.minimumLiveSeconds, 30)
    }

    func testSecretFilesMustBePrivate() throws {
        let path = NSTemporaryDirectory() + "oton-secret-\(getpid())"
        defer { unlink(path) }
        try SecretReader.writeFile(path, secret: "s3cret")
        XCTAssertEqual(try SecretReader.readFile(path, what: "token"), "s3cret")
        chmod(path, 0o640)
        XCTAssertThrowsError(try SecretReader.readFile(path, what: "token")) { error in
            XCTAssertTrue("\(error)".contains("mode 640"))
            XCTAssertFalse("\(error)".contains("s3cret"))
        }
        XCTAssertEqual(try SecretReader.read(SecretReference(environmentVariable: "V", file: path), what: "t", environment: ["V": "env"]), "env")
    }

    func testQueryArgumentsAndFormats() throws {
        let now = Date(timeIntervalSince1970: 1_714_600_000)
        let query = try HistoryQuery.parse(["--limit", "5", "--since", "2h", "--station=Alpha", "--format", "CSV"], now: now)
        XCTAssertEqual(query.limit, 5)
        XCTAssertEqual(query.since, 1_714_592_800_000_000)
        XCTAssertEqual(query.station, "Alpha")
        XCTAssertEqual(query.format, .csv)
        XCTAssertTrue(try HistoryQuery.parse(["stats"]).stats)
        XCTAssertThrowsError(try HistoryQuery.parse(["--limit", "0"]))
        XCTAssertThrowsError(try HistoryQuery.parse(["--bogus"]))
        XCTAssertEqual(try HistoryQuery.parse(["--since", "2024-05-01"], timeZone: TimeZone(identifier: "UTC")!).since, 1_714_521_600_000_000)

        let row = PlayRow(
            id: 1, station: "S", artist: "=cmd()", title: "a,b", rawTitle: nil, startedAt: 0, endedAt: nil,
            secondsListened: nil, artworkPath: nil, isJingle: false)
        let csv = HistoryFormatter.format([row], as: .csv)
        XCTAssertTrue(csv.contains("'=cmd()"), "no spreadsheet formulas from untrusted titles: \(csv)")
        XCTAssertTrue(csv.contains("\"a,b\""))
        let table = HistoryFormatter.format(
            [
                PlayRow(
                    id: 1, station: "S", artist: "A\u{1B}[2J", title: "T", rawTitle: nil, startedAt: 0,
                    endedAt: nil, secondsListened: 65, artworkPath: nil, isJingle: false)
            ], as: .table)
        XCTAssertFalse(table.contains("\u{1B}"), "no terminal escapes from untrusted titles")
        XCTAssertTrue(table.contains("1:05"))
    }
}

final class RedirectPolicyTests: XCTestCase {
    private let base = URL(string: "https://api.listenbrainz.org/1/submit-listens")!

    func testSameOriginIsFollowedAndRelativeLocationsResolve() {
        XCTAssertEqual(
            RedirectPolicy.decide(status: 307, location: "/2/submit-listens", from: base, redirectsSoFar: 0),
            .follow(URL(string: "https://api.listenbrainz.org/2/submit-listens")!))
        XCTAssertEqual(
            RedirectPolicy.decide(status: 308, location: "https://API.listenbrainz.org:443/x", from: base, redirectsSoFar: 4),
            .follow(URL(string: "https://API.listenbrainz.org:443/x")!), "the default port and the host's case are the same origin")
        XCTAssertNil(RedirectPolicy.decide(status: 200, location: "https://evil.example/", from: base, redirectsSoFar: 0), "not a redirect")
    }

    func testAnotherOriginIsRefusedNamingOnlyItsOrigin() {
        for location in [
            "https://evil.example/steal?token=abc", "http://api.listenbrainz.org/1/submit-listens",
            "https://api.listenbrainz.org:8443/1/submit-listens", "//evil.example/x", "https://user:pw@evil.example/",
        ] {
            guard case let .refuse(reason)? = RedirectPolicy.decide(status: 302, location: location, from: base, redirectsSoFar: 0) else {
                return XCTFail("followed \(location)")
            }
            XCTAssertTrue(reason.contains("redirected to another host ("), reason)
            XCTAssertFalse(reason.contains("token=abc") || reason.contains("pw@") || reason.contains("/steal"), reason)
        }
    }

    func testLoopsMissingLocationsAndOtherSchemesAreRefused() {
        XCTAssertEqual(
            RedirectPolicy.decide(status: 307, location: "/again", from: base, redirectsSoFar: 5),
            .refuse("the service redirected more than 5 times (a loop?); giving up on this request"))
        guard case .refuse? = RedirectPolicy.decide(status: 301, location: nil, from: base, redirectsSoFar: 0),
            case .refuse? = RedirectPolicy.decide(status: 303, location: "file:///etc/passwd", from: base, redirectsSoFar: 0)
        else {
            return XCTFail("a redirect without a usable http(s) Location is refused")
        }
    }
}

/// Issue 15.20: history's search text, folded without ICU-specific rules in every script.
final class SearchFoldingTests: XCTestCase {
    func testCaseAndAccentsFoldInEveryScript() {
        for (a, b) in [
            ("Кино", "кино"), ("КИНО", "кино"), ("Beyoncé", "beyonce"), ("Ёлка", "елка"), ("ΣΟΦΙΑ", "σοφια"),
            ("Motörhead", "MOTORHEAD"), ("ｆｕｌｌ", "full"), ("Сахам сирэ", "САХАМ СИРЭ"),
        ] {
            XCTAssertEqual(SearchFolding.fold(a), SearchFolding.fold(b), "\(a) / \(b)")
        }
        XCTAssertNotEqual(SearchFolding.fold("Кино"), SearchFolding.fold("Кина"))
        XCTAssertEqual(SearchFolding.searchText(artist: "A", title: nil, rawTitle: "A - B"), "a\na - b")
        XCTAssertTrue(try HistoryQuery.parse(["--all"]).includeSkipped)
        XCTAssertFalse(try HistoryQuery.parse([]).includeSkipped)
    }
}
