import OtonJSON
import OtonPluginKit
import SnapcastLogic
import XCTest

/// The Snapcast sink's config, its bounded backlog, and the lines it exchanges with the stream's
/// control script (snapserver 0.26's stream plugin protocol).
final class SnapcastLogicTests: XCTestCase {
    func testDefaultsAndEveryKey() throws {
        let defaults = try SnapcastConfig.parse("{}")
        XCTAssertEqual(defaults.host, "127.0.0.1")
        XCTAssertEqual(defaults.port, 4953)
        XCTAssertEqual(defaults.stream, "Oton")
        XCTAssertEqual(defaults.format, SnapcastSampleFormat(rate: 48000, channels: 2))
        XCTAssertEqual(defaults.metadataListen, ListenAddress(host: "127.0.0.1", port: 4955))
        XCTAssertFalse(defaults.muteLocal)
        XCTAssertEqual(defaults.bufferBytes, 2 * 48000 * 4, "two seconds of 48 kHz 16-bit stereo")
        let config = try SnapcastConfig.parse(
            #"""
            {"host": "snap-server.local", "port": 5000, "stream": "Radio", "format": "44100:16:1",
             "metadata_listen": "0.0.0.0:0", "mute_local": true, "buffer_ms": 500}
            """#)
        XCTAssertEqual(config.host, "snap-server.local")
        XCTAssertEqual(config.port, 5000)
        XCTAssertEqual(config.stream, "Radio")
        XCTAssertEqual(config.format.description, "44100:16:1")
        XCTAssertEqual(config.metadataListen, ListenAddress(host: "0.0.0.0", port: 0))
        XCTAssertTrue(config.muteLocal)
        XCTAssertEqual(config.bufferBytes, 44100 / 2 * 2, "half a second of 16-bit mono, whole frames")
    }

    func testUnknownKeysAndBadValuesAreRefusedWithTheKeyNamed() {
        let cases: [(String, String)] = [
            (
                #"{"listen": "127.0.0.1:4953"}"#,
                "config.listen is not a snapcast setting; known: buffer_ms, format, host, metadata_listen, mute_local, port, stream"
            ),
            (#"{"host": ""}"#, "config.host"),
            (#"{"host": "a b"}"#, "config.host must be a host name or IPv4 address"),
            (#"{"port": 0}"#, "config.port must be a whole number from 1 to 65535"),
            (#"{"port": "4953"}"#, "config.port"),
            (#"{"stream": "a\u0001"}"#, "config.stream must not contain control characters"),
            (#"{"format": "48000:24:2"}"#, "config.format must be RATE:16:CHANNELS"),
            (#"{"format": "48000:16"}"#, "config.format must be RATE:16:CHANNELS"),
            (#"{"format": "4000:16:2"}"#, "config.format must be RATE:16:CHANNELS"),
            (#"{"format": "48000:16:9"}"#, "config.format must be RATE:16:CHANNELS"),
            (#"{"metadata_listen": "localhost:4955"}"#, "config.metadata_listen must be an IPv4 ADDRESS:PORT"),
            (#"{"mute_local": "yes"}"#, "config.mute_local must be true or false"),
            (#"{"buffer_ms": 50}"#, "config.buffer_ms must be a whole number from 100 to 10000"),
            ("[]", "config must be a JSON object"),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try SnapcastConfig.parse(json), json) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "\(json): \(error)")
            }
        }
    }

    func testTheBacklogDropsTheOldestWholeBuffersAndCountsThem() {
        var backlog = AudioBacklog(capacity: 10)
        backlog.append([1, 1, 1, 1])
        backlog.append([2, 2, 2, 2])
        backlog.append([3, 3, 3, 3])  // 12 > 10: the first goes
        XCTAssertEqual(backlog.byteCount, 8)
        XCTAssertEqual(backlog.droppedBytes, 4)
        XCTAssertEqual(backlog.droppedBuffers, 1)
        backlog.append(Array(repeating: 9, count: 11))  // larger than the whole capacity: dropped itself
        XCTAssertEqual(backlog.droppedBytes, 15)
        XCTAssertEqual(backlog.popFirst(), [2, 2, 2, 2])
        backlog.dropAll()
        XCTAssertTrue(backlog.isEmpty)
        XCTAssertEqual(backlog.byteCount, 0)
        XCTAssertEqual(backlog.droppedBytes, 19)
        XCTAssertEqual(backlog.droppedBuffers, 3)
    }

    func testTheBacklogStaysBoundedUnderAFlood() {
        var backlog = AudioBacklog(capacity: 384_000)
        let buffer = [UInt8](repeating: 0, count: 3840)
        for _ in 0..<10000 { backlog.append(buffer) }
        XCTAssertLessThanOrEqual(backlog.byteCount, 384_000)
        XCTAssertEqual(backlog.droppedBytes + UInt64(backlog.byteCount), 10000 * 3840, "every byte is kept or counted")
        var popped = 0
        while let chunk = backlog.popFirst() { popped += chunk.count }
        XCTAssertEqual(popped, 384_000)
    }

    func testATrackBecomesSnapcastMetadataWithTheStationAsAlbum() throws {
        let metadata = StreamMetadata(
            track: TrackFields(fields: [
                "sequence": "1", "title": "Song One", "artist": "Artist A", "station": "Test FM",
                "artwork_url": "file:///tmp/cover.png", "station_logo_url": "https://example.org/logo.png",
            ]))
        XCTAssertEqual(
            metadata.json.jsonText,
            #"{"album":"Test FM","artUrl":"https://example.org/logo.png","artist":["Artist A"],"title":"Song One"}"#,
            "a file URL is no use to a phone: the station's logo is shown instead")
        let line = ControlScriptProtocol.propertiesLine(StreamProperties(metadata: metadata, isPlaying: true))
        let value = try JSONValue.parse(Data(line.utf8))
        XCTAssertEqual(value["method"]?.stringValue, "Plugin.Stream.Player.Properties")
        XCTAssertEqual(value["params"]?["playbackStatus"]?.stringValue, "playing")
        XCTAssertEqual(value["params"]?["canControl"]?.boolValue, false)
        XCTAssertEqual(value["params"]?["metadata"]?["title"]?.stringValue, "Song One")
        XCTAssertEqual(StreamMetadata(track: TrackFields(fields: ["sequence": "1", "title": ""])).json.jsonText, "{}", "empty fields are left out")
    }

    func testSnapserversRequestsAreAnsweredAndControlIsRefused() throws {
        let properties = StreamProperties(metadata: StreamMetadata(title: "Song One"), isPlaying: true)
        guard
            case let .request(reply) = ControlScriptProtocol.read(
                #"{"id":7,"jsonrpc":"2.0","method":"Plugin.Stream.Player.GetProperties"}"#,
                properties: properties)
        else { return XCTFail("GetProperties") }
        let answer = try JSONValue.parse(Data(reply.utf8))
        XCTAssertEqual(answer["id"]?.int64Value, 7)
        XCTAssertEqual(answer["result"]?["metadata"]?["title"]?.stringValue, "Song One")
        guard
            case let .request(refusal) = ControlScriptProtocol.read(
                #"{"id":"x","jsonrpc":"2.0","method":"Plugin.Stream.Player.Control","params":{"command":"pause"}}"#,
                properties: properties)
        else { return XCTFail("Control") }
        XCTAssertEqual(try JSONValue.parse(Data(refusal.utf8))["error"]?["code"]?.int64Value, -32601)
        XCTAssertEqual(
            ControlScriptProtocol.read(#"{"jsonrpc":"2.0","method":"Oton.Stream","params":{"stream":"Oton"}}"#, properties: properties), .stream("Oton"))
        XCTAssertEqual(ControlScriptProtocol.read(#"{"jsonrpc":"2.0","result":"ok","id":3}"#, properties: properties), .ignored)
        for hostile in ["not json", "[1,2]", #"{"method":"Oton.Stream"}"#] {
            guard case .invalid = ControlScriptProtocol.read(hostile, properties: properties) else { return XCTFail(hostile) }
        }
    }

    func testLinesAreSplitAndAnOverlongLineIsRefused() throws {
        var splitter = LineSplitter(limit: 8)
        XCTAssertEqual(try splitter.feed(Array("ab\r\ncd".utf8)), ["ab"])
        XCTAssertEqual(try splitter.feed(Array("e\n\n".utf8)), ["cde", ""])
        XCTAssertThrowsError(try splitter.feed(Array(repeating: UInt8(ascii: "x"), count: 9)))
    }
}
