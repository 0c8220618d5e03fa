import Foundation
import XCTest

@testable import OtonHost

/// The rule engine (pure): paths, templates, each shipped rule against an answer of its platform's
/// documented shape, and the catalogue's loading errors.
final class NowPlayingRuleTests: XCTestCase {
    private var shipped: NowPlayingCatalogue {
        get throws {
            let file = try XCTUnwrap(NowPlayingCatalogue.shippedFiles().first { FileManager.default.fileExists(atPath: $0) })
            return NowPlayingCatalogue(rules: try NowPlayingCatalogue.rules(in: try Data(contentsOf: URL(fileURLWithPath: file)), file: file))
        }
    }

    private func read(_ body: String, rule name: String, stream: String) throws -> StationStatus {
        let catalogue = try shipped
        let url = try XCTUnwrap(URL(string: stream))
        let match = try XCTUnwrap(catalogue.candidates(for: url).first { $0.rule.name == name }, "\(name) does not match \(stream)")
        return try NowPlayingReader.read(Data(body.utf8), rule: match.rule, placeholders: match.placeholders)
    }

    private func url(_ name: String, stream: String) throws -> String {
        let catalogue = try shipped
        let match = try XCTUnwrap(catalogue.candidates(for: try XCTUnwrap(URL(string: stream))).first { $0.rule.name == name })
        return NowPlayingRule.fill(match.rule.url, match.placeholders)
    }

    func testShippedCatalogueHasEveryPlatform() throws {
        let names = Set(try shipped.rules.map(\.name))
        XCTAssertEqual(
            names, ["radio.co", "laut.fm", "azuracast", "zeno", "triton", "radiojar", "somafm", "icecast", "shoutcast2", "shoutcast1"])
    }

    func testPlatformRulesComeBeforeGenericOnes() throws {
        let order = try shipped.candidates(for: try XCTUnwrap(URL(string: "https://stream.laut.fm/eins"))).map(\.rule.name)
        XCTAssertEqual(order, ["laut.fm", "icecast", "shoutcast2", "shoutcast1"])
    }

    func testDerivedURLs() throws {
        XCTAssertEqual(try url("icecast", stream: "http://radio.example:8000/live.mp3"), "http://radio.example:8000/status-json.xsl")
        XCTAssertEqual(try url("shoutcast1", stream: "http://sc.example:8010/;"), "http://sc.example:8010/7.html")
        XCTAssertEqual(try url("radio.co", stream: "https://s3.radio.co/s2f1e3a4b5/listen"), "https://public.radio.co/stations/s2f1e3a4b5/status")
        XCTAssertEqual(try url("laut.fm", stream: "https://stream.laut.fm/eins"), "https://api.laut.fm/station/eins/current_song")
        XCTAssertEqual(
            try url("azuracast", stream: "https://radio.example.org/listen/my_station/radio.mp3"), "https://radio.example.org/api/nowplaying/my_station")
        XCTAssertEqual(try url("zeno", stream: "https://stream.zeno.fm/0r0xa792kwzuv"), "https://api.zeno.fm/mounts/metadata/subscribe/0r0xa792kwzuv")
        XCTAssertEqual(
            try url("triton", stream: "https://playerservices.streamtheworld.com/api/livestream-redirect/KROQFM.mp3"),
            "https://np.tritondigital.com/public/nowplaying?mountName=KROQFM&numberToFetch=1&eventType=track")
        XCTAssertEqual(
            try url("radiojar", stream: "https://stream.radiojar.com/4ywdgup3bnzuv"), "https://www.radiojar.com/api/stations/4ywdgup3bnzuv/now_playing/")
        XCTAssertEqual(try url("somafm", stream: "https://ice2.somafm.com/groovesalad-128-mp3"), "https://somafm.com/songs/groovesalad.json")
    }

    func testIcecastPicksTheMountAndNeverAnother() throws {
        let body = """
            {"icestats":{"source":[{"listenurl":"http://internal:8000/other","title":"Foreign - Song"},
            {"listenurl":"http://internal:8000/live","artist":"Band","title":"Track","server_name":"Unspecified name"}]}}
            """
        let status = try read(body, rule: "icecast", stream: "http://radio.example:8000/live")
        XCTAssertEqual(status.title, "Band - Track")
        XCTAssertNil(status.stationName, "Icecast's placeholder name is no name")
        let lone = #"{"icestats":{"source":{"listenurl":"http://internal:8000/other","title":"Foreign - Song"}}}"#
        XCTAssertThrowsError(try read(lone, rule: "icecast", stream: "http://radio.example:8000/live")) { error in
            XCTAssertEqual(error as? StationStatusParseError, .noMatchingSource(streamPath: "/live"))
        }
    }

    func testShoutcastV1SevenHTML() throws {
        let page = "<HTML><meta http-equiv=\"Pragma\" content=\"no-cache\"></head><body>3,1,9,100,3,128,Artist, Jr. - Song &amp; Dance</body></html>"
        XCTAssertEqual(try read(page, rule: "shoutcast1", stream: "http://sc.example:8010/").title, "Artist, Jr. - Song & Dance")
        XCTAssertThrowsError(try read("<html><body>not, a, status</body></html>", rule: "shoutcast1", stream: "http://sc.example:8010/"))
    }

    func testShoutcastV2Stats() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes" ?><SHOUTCASTSERVER><CURRENTLISTENERS>1</CURRENTLISTENERS>
            <SERVERTITLE>Test FM</SERVERTITLE><SONGTITLE>Singer - Tune</SONGTITLE></SHOUTCASTSERVER>
            """
        let status = try read(xml, rule: "shoutcast2", stream: "http://sc.example:8000/stream")
        XCTAssertEqual(status.title, "Singer - Tune")
        XCTAssertEqual(status.stationName, "Test FM")
    }

    func testTritonNowPlayingXML() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?><nowplaying-info-list>
            <nowplaying-info mountName="KROQFM" timestamp="1732873200" type="track">
            <property name="cue_time_duration"><![CDATA[215000]]></property>
            <property name="cue_title"><![CDATA[Song Title]]></property>
            <property name="track_artist_name"><![CDATA[The Artist]]></property>
            </nowplaying-info></nowplaying-info-list>
            """
        let status = try read(xml, rule: "triton", stream: "https://playerservices.streamtheworld.com/api/livestream-redirect/KROQFM.mp3")
        XCTAssertEqual(status.title, "The Artist - Song Title")
        XCTAssertEqual(status.startedAt, Date(timeIntervalSince1970: 1_732_873_200))
    }

    func testAzuraCastLautRadiojarSomaZeno() throws {
        let azura = """
            {"station":{"name":"Azura FM"},"now_playing":{"played_at":1732873200,"duration":180,
            "song":{"artist":"A","title":"B","text":"A - B","art":"https://radio.example.org/art.jpg"}}}
            """
        let status = try read(azura, rule: "azuracast", stream: "https://radio.example.org/listen/my_station/radio.mp3")
        XCTAssertEqual(status.title, "A - B")
        XCTAssertEqual(status.durationSeconds, 180)
        XCTAssertEqual(status.artworkURL, URL(string: "https://radio.example.org/art.jpg"))
        let laut = #"{"title":"Song","artist":{"name":"Band"},"started_at":"2024-11-29T10:00:00+01:00"}"#
        let lautStatus = try read(laut, rule: "laut.fm", stream: "https://stream.laut.fm/eins")
        XCTAssertEqual(lautStatus.title, "Band - Song")
        XCTAssertEqual(lautStatus.startedAt, Date(timeIntervalSince1970: 1_732_870_800))
        XCTAssertEqual(
            try read(#"{"artist":"X","title":"Y","thumb":"javascript:alert(1)"}"#, rule: "radiojar", stream: "https://stream.radiojar.com/abc").artworkURL, nil)
        let soma = #"{"songs":[{"artist":"Now","title":"Playing","date":"1732873200"},{"artist":"Before","title":"That"}]}"#
        XCTAssertEqual(try read(soma, rule: "somafm", stream: "https://ice2.somafm.com/groovesalad-128-mp3").title, "Now - Playing")
        XCTAssertEqual(try read(#"{"streamTitle":"Z - Q"}"#, rule: "zeno", stream: "https://stream.zeno.fm/abc123").title, "Z - Q")
    }

    func testPathGrammar() {
        XCTAssertNil(NowPlayingPath(""))
        XCTAssertNil(NowPlayingPath("a[unclosed"))
        XCTAssertNil(NowPlayingPath("a..b"))
        XCTAssertNil(NowPlayingPath("a[=x]"))
        XCTAssertEqual(NowPlayingPath("a.b[2][k$=v]")?.steps, [.key("a"), .key("b"), .index(2), .filter(key: "k", op: .endsWith, value: "v")])
    }

    func testTemplateLeavesJSONBracesAlone() {
        XCTAssertEqual(NowPlayingRule.fill(#"x?c={"subs":{"station:{id}":{}}}"#, ["id": "s1"]), #"x?c={"subs":{"station:s1":{}}}"#)
        XCTAssertEqual(NowPlayingRule.fill("{unknown}/{id}", ["id": "7"]), "{unknown}/7")
    }

    func testLoadingErrorsNameFileRuleAndField() {
        func error(_ text: String) -> String {
            do {
                _ = try NowPlayingCatalogue.rules(in: Data(text.utf8), file: "mine.json")
                return "no error"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(error("{"), error("{").hasPrefix("mine.json: not JSON") ? error("{") : "")
        XCTAssertEqual(error(#"{"rule":[]}"#), #"mine.json: write an object {"rules": [ … ]} with at most 500 rules"#)
        XCTAssertEqual(error(#"{"rules":[{"match":"x"}]}"#), #"mine.json: rule 1 needs a "name" of letters, digits, '.', '_' or '-'"#)
        XCTAssertEqual(
            error(#"{"rules":[{"name":"my","match":"(","url":"https://x/","fields":{"title":"t"}}]}"#).prefix(80),
            #"mine.json: rule "my": "match" must be a regular expression over the stream URL ("#.prefix(80))
        XCTAssertEqual(
            error(#"{"rules":[{"name":"my","match":"x","url":"ftp://x/","fields":{"title":"t"}}]}"#),
            #"mine.json: rule "my": "url" must be an http(s) URL template such as {scheme}://{authority}/status-json.xsl"#)
        XCTAssertEqual(
            error(#"{"rules":[{"name":"my","match":"x","url":"https://x/","poll_seconds":1,"fields":{"title":"t"}}]}"#),
            #"mine.json: rule "my": "poll_seconds" must be a number of seconds from 5 to 3600"#)
        XCTAssertEqual(
            error(#"{"rules":[{"name":"my","match":"x","url":"https://x/","fields":{"title":"a[["}}]}"#),
            #"mine.json: rule "my": "fields.title" must be a path such as icestats.source[listenurl~={path}].title"#)
        XCTAssertEqual(
            error(#"{"rules":[{"name":"my","match":"x","url":"https://x/","fields":{"artist":"a"}}]}"#),
            #"mine.json: rule "my": "fields" must be an object naming where "title" (or "text") and "artist" sit"#)
        XCTAssertEqual(
            error(
                #"{"rules":[{"name":"my","match":"x","url":"https://x/","fields":{"title":"t"}},{"name":"my","match":"y","url":"https://y/","fields":{"title":"t"}}]}"#
            ),
            #"mine.json: two rules are named "my""#)
    }

    func testUserRulesWinByNameAndNewOnesComeFirst() throws {
        let user = try NowPlayingCatalogue.rules(
            in: Data(
                #"{"rules":[{"name":"icecast","generic":true,"url":"{scheme}://{authority}/mine.json","fields":{"title":"t"}},{"name":"my-station","match":"^https?://my\\.example/","url":"https://my.example/np","fields":{"text":"now"}}]}"#
                    .utf8), file: "now-playing.json")
        let catalogue = NowPlayingCatalogue(shipped: try shipped.rules, user: user)
        XCTAssertEqual(catalogue.rules.first?.name, "my-station")
        XCTAssertEqual(catalogue.rule(named: "icecast")?.url, "{scheme}://{authority}/mine.json")
        XCTAssertEqual(catalogue.rules.count, try shipped.rules.count + 1)
    }

    func testHostileBodiesNeverTrap() throws {
        let catalogue = try shipped
        let huge = Data(repeating: UInt8(ascii: "["), count: 2 << 20)
        for rule in catalogue.rules {
            let placeholders = ["path": "/live", "scheme": "http", "authority": "x"]
            XCTAssertThrowsError(try NowPlayingReader.read(huge, rule: rule, placeholders: placeholders))
            _ = try? NowPlayingReader.read(Data("<html><script>x</script></html>".utf8), rule: rule, placeholders: placeholders)
            _ = try? NowPlayingReader.read(Data(#"{"a":[1,{"b":null}]}"#.utf8), rule: rule, placeholders: placeholders)
        }
    }
}
