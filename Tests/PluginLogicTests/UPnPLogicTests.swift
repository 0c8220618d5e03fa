import OtonJSON
import UPnPLogic
import XCTest

/// The UPnP casting plugin's pure parts: its config, the cleaning of what renderers call
/// themselves, the formats a renderer must play, the `cast` command and the renderer lookup.
final class UPnPLogicTests: XCTestCase {
    func testConfigDefaultsAndRefusals() throws {
        XCTAssertEqual(try UPnPConfig.parse("{}"), UPnPConfig())
        XCTAssertNil(try UPnPConfig.parse("{}").interface)
        XCTAssertEqual(try UPnPConfig.parse("{}").timeoutSeconds, 5)
        let config = try UPnPConfig.parse(#"{"interface": "eth0", "timeout_seconds": 3}"#)
        XCTAssertEqual(config.interface, "eth0")
        XCTAssertEqual(config.timeoutSeconds, 3)
        let cases: [(String, String)] = [
            (#"{"port": 1900}"#, "config.port is not a UPnP setting; known: interface, timeout_seconds"),
            (#"{"interface": "eth0; rm -rf"}"#, "config.interface must be an interface name"),
            (#"{"interface": ""}"#, "config.interface"),
            (#"{"interface": "an-interface-name-far-too-long"}"#, "config.interface"),
            (#"{"timeout_seconds": 0}"#, "config.timeout_seconds must be a whole number from 1 to 8"),
            (#"{"timeout_seconds": 60}"#, "config.timeout_seconds must be a whole number from 1 to 8"),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try UPnPConfig.parse(json), json) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "\(json): \(error)")
            }
        }
    }

    func testHostileNamesLoseControlCharactersAndAreBounded() {
        XCTAssertEqual(PeerText.clean("Evil\u{1B}[31mRed\u{07}\r\nTV\u{1B}]0;owned\u{07}"), "Evil[31mRed TV]0;owned")
        XCTAssertEqual(PeerText.clean("  Living\t\tRoom  "), "Living Room")
        XCTAssertEqual(PeerText.clean("a\u{202E}b\u{200B}c\u{9B}d"), "abcd", "bidi override, zero width, C1")
        let long = PeerText.clean(String(repeating: "A", count: 100_000))
        XCTAssertEqual(long, String(repeating: "A", count: 64) + "…")
        XCTAssertEqual(PeerText.clean("Кухня — Sonos"), "Кухня — Sonos", "words of any script stay")
        XCTAssertEqual(PeerText.clean("\u{1B}\u{1B}"), "")
    }

    func testStreamFormatsByCodecAndHLS() {
        XCTAssertEqual(StreamFormat.of(codec: "MPEG-1 Layer 3 (MP3)", url: "http://x/live")?.name, "MP3")
        XCTAssertEqual(StreamFormat.of(codec: "MPEG-1 Layer 3 (MP3)", url: "http://x/live")?.mimeTypes.first, "audio/mpeg")
        XCTAssertEqual(StreamFormat.of(codec: "MPEG-4 AAC", url: "http://x/live")?.name, "AAC")
        XCTAssertEqual(StreamFormat.of(codec: "Opus", url: "http://x/live.opus")?.mimeTypes.first, "audio/ogg")
        XCTAssertEqual(StreamFormat.of(codec: "Vorbis", url: "http://x/live.ogg")?.name, "Ogg Vorbis")
        XCTAssertEqual(StreamFormat.of(codec: "MPEG-4 AAC", url: "http://x/master.m3u8?token=1")?.name, "HLS", "an HLS playlist is handed over as one")
        XCTAssertNil(StreamFormat.of(codec: nil, url: "http://x/live"))
        XCTAssertNil(StreamFormat.of(codec: "Something New", url: "http://x/live"))
        XCTAssertEqual(StreamFormat.protocolInfo("audio/mpeg"), "http-get:*:audio/mpeg:*")
    }

    func testSinkListsAreBounded() {
        XCTAssertEqual(StreamFormat.sinkEntries(" http-get:*:audio/mpeg:* ,,http-get:*:audio/ogg:*"), ["http-get:*:audio/mpeg:*", "http-get:*:audio/ogg:*"])
        let huge = Array(repeating: "http-get:*:audio/x-\(String(repeating: "z", count: 2000)):*", count: 2000).joined(separator: ",")
        let entries = StreamFormat.sinkEntries(huge)
        XCTAssertEqual(entries.count, 512)
        XCTAssertTrue(entries.allSatisfy { $0.count <= 512 })
    }

    func testCastCommands() {
        XCTAssertEqual(CastCommand.parse([]), .success(.list))
        XCTAssertEqual(CastCommand.parse(["list"]), .success(.list))
        XCTAssertEqual(CastCommand.parse(["to", "Living", "Room", "TV"]), .success(.to("Living Room TV")))
        XCTAssertEqual(CastCommand.parse(["to"]), .failure(.missingName))
        XCTAssertEqual(CastCommand.parse(["stop"]), .success(.stop))
        XCTAssertEqual(CastCommand.parse(["status"]), .success(.status))
        XCTAssertEqual(CastCommand.parse(["fling\u{1B}[2J"]), .failure(.unknown("fling[2J")))
    }

    func testRenderersAreFoundByNameOrUDNAndAmbiguityIsSaid() {
        let tv = RendererEntry(udn: "uuid:1", name: "Living Room", model: "TV", address: "10.0.0.5:49152")
        let speaker = RendererEntry(udn: "uuid:2", name: "Kitchen", model: "Speaker", address: "10.0.0.6:1400")
        let twin = RendererEntry(udn: "uuid:3", name: "kitchen", model: "Speaker", address: "10.0.0.7:1400")
        XCTAssertEqual(RendererEntry.find("living room", in: [tv, speaker]), .found(tv))
        XCTAssertEqual(RendererEntry.find("uuid:2", in: [tv, speaker, twin]), .found(speaker))
        XCTAssertEqual(RendererEntry.find("Kitchen", in: [tv, speaker, twin]), .ambiguous([speaker, twin]))
        XCTAssertEqual(RendererEntry.find("Garage", in: [tv]), .none)
        XCTAssertEqual(RendererEntry.address(ofLocation: "http://10.0.0.5:49152/description.xml"), "10.0.0.5:49152")
        XCTAssertEqual(RendererEntry.address(ofLocation: "garbage\u{1B}"), "garbage")
    }

    func testTheCastEventsFields() {
        XCTAssertEqual(CastState.eventName, "org.oton.cast.state")
        let fields = CastState.fields(.failed, renderer: "TV", url: "http://x/", message: "no")
        XCTAssertEqual(fields.map(\.0), ["renderer", "state", "url", "message"])
        XCTAssertEqual(fields[1].1, "failed")
    }

    func testXMLErrorsFromPeersAreCleanedCutAndRateLimited() throws {
        var errors = PeerXMLErrors()
        let hostile = "PCDATA invalid Char value 27\n<friendlyName>Evil\u{1B}[31mRed\u{07}" + String(repeating: "x", count: 10_000)
        let first = try XCTUnwrap(errors.line(for: hostile, now: 0))
        XCTAssertFalse(first.unicodeScalars.contains { $0.value < 0x20 }, first.debugDescription)
        XCTAssertTrue(first.contains("PCDATA invalid Char value 27 <friendlyName>Evil[31mRed"), first)
        XCTAssertLessThan(first.count, 400, "cut short")
        for second in 1..<PeerXMLErrors.perWindow { XCTAssertNotNil(errors.line(for: "e", now: Double(second))) }
        XCTAssertNil(errors.line(for: "e", now: 10), "the window's lines are spent")
        XCTAssertNil(errors.line(for: "e", now: 59))
        let next = errors.line(for: "again", now: 61)
        XCTAssertEqual(next, "UPnP: a device on the network sent XML that does not parse: again (2 more such errors not shown)")
    }
}
