import Foundation
import PluginAPI
import XCTest

@testable import OtonHost

/// The frames an isolated plugin's events and media travel in: what goes in comes out (the core
/// kinds' payloads rebuilt from their fields), and every truncated or lying body reads as nothing.
final class IsolationCodecTests: XCTestCase {
    func testATrackEventComesBackWithItsPayloadAndExtraFields() throws {
        let registry = EventKindRegistry()
        let track = TrackInfo(
            title: "Песня", artist: "Artist \"A\"", rawTitle: "Artist \"A\" - Песня", station: "Test FM",
            bitrate: 128_000, codec: "MP3", streamURL: URL(string: "http://127.0.0.1/s"), isBreak: false)
        var event = BusEvent.track(track, sequence: 7)
        event.extraFields = [("tag_mono_ns", "123"), ("", "\u{0}\n")]
        let back = try XCTUnwrap(IsolationCodec.event(fromBody: IsolationCodec.body(of: event), registry: registry))
        XCTAssertEqual(back.kind, OTON_EVENT_TRACK)
        XCTAssertEqual(back.fields.map(\.key), event.fields.map(\.key))
        XCTAssertEqual(back.fields.map(\.value), event.fields.map(\.value))
        guard case let .track(info, sequence) = back.payload else { return XCTFail("\(back.payload)") }
        XCTAssertEqual(sequence, 7)
        XCTAssertEqual(info.title, "Песня")
        XCTAssertEqual(info.bitrate, 128_000)
        XCTAssertEqual(back.monotonicNanoseconds, event.monotonicNanoseconds)
    }

    func testMediaComesBackWithItsFormatChoiceAndBytes() throws {
        let choice = PCMFormatChoice(sampleFormat: OTON_SAMPLE_F32LE, rate: 16000, channels: 1)
        let format = MediaFormat(tap: OTON_TAP_PCM, caps: "audio/x-raw", sampleFormat: OTON_SAMPLE_F32LE, rate: 16000, channels: 1, pcmChoice: choice)
        let packet = MediaPacket(format: format, bytes: [1, 2, 3, 4, 5, 6, 7, 8], flags: OTON_MEDIA_FLAG_NEW_CONNECTION, offset: 42, connection: 3)
        let body = IsolationCodec.body(of: packet, extraFlags: OTON_MEDIA_FLAG_DISCONT) + [1, 2, 3, 4, 5, 6, 7, 8]
        var formats: [String: MediaFormat] = [:]
        let back = try XCTUnwrap(IsolationCodec.packet(fromBody: body, formats: &formats))
        XCTAssertEqual(back.format.pcmChoice, choice)
        XCTAssertEqual(back.flags, OTON_MEDIA_FLAG_NEW_CONNECTION | OTON_MEDIA_FLAG_DISCONT)
        XCTAssertEqual(back.offset, 42)
        XCTAssertEqual(back.connection, 3)
        XCTAssertEqual(Array(UnsafeRawBufferPointer(start: back.bytes.baseAddress, count: back.size)), [1, 2, 3, 4, 5, 6, 7, 8])
    }

    func testTruncatedAndLyingBodiesReadAsNothing() {
        let registry = EventKindRegistry()
        let body = IsolationCodec.body(of: BusEvent.volume(0.5))
        for length in 0..<body.count {
            XCTAssertNil(IsolationCodec.event(fromBody: Array(body.prefix(length)), registry: registry), "cut at \(length)")
        }
        var lying = IsolationBinaryWriter()
        lying.string("volume"); lying.string("host"); lying.u32(0); lying.i64(0); lying.i64(0); lying.u32(4_000_000_000)
        XCTAssertNil(IsolationCodec.event(fromBody: lying.bytes, registry: registry), "a field count of 4 billion")
        var huge = IsolationBinaryWriter()
        huge.u32(UInt32.max)
        XCTAssertNil(IsolationCodec.event(fromBody: huge.bytes, registry: registry), "a name of 4 GiB")
        var formats: [String: MediaFormat] = [:]
        XCTAssertNil(IsolationCodec.packet(fromBody: [1, 0, 0], formats: &formats))
    }

    /// The child's ready message and requests are JSON headers: they come back as sent, and a
    /// child that lies about a number (beyond UInt32, a fraction, a string) is not believed.
    func testTheReadyManifestComesBackAndLyingNumbersAreRefused() throws {
        let manifest = PluginManifest(
            path: "/p/libX.so", id: "org.x", name: "X «ü»", version: "1.0", description: "d\n\u{1}",
            abiMajor: 1, abiMinor: 3, descriptorSize: 200, consumes: ["track"], mediaTaps: 3,
            commands: [.init(name: "x", usage: "x [y]", help: "h")], hasOnEvent: true, hasOnMedia: false, hasOnCommand: true)
        let pcm = PCMFormatChoice(sampleFormat: 2, rate: 192_000, channels: 8)
        let header = IsolationManifest.header(of: manifest, taps: 1, pcm: pcm)
        let sent = try XCTUnwrap(JSONValue.parse(Data(JSONValue.object(header).jsonText.utf8)).objectValue)
        let ready = try XCTUnwrap(IsolationManifest.ready(from: sent))
        var withoutCommands = manifest
        withoutCommands.commands = []  // they come in `registered` frames before it
        XCTAssertEqual(ready.manifest, withoutCommands)
        XCTAssertEqual(ready.pcm, pcm)
        XCTAssertEqual(ready.taps, 1)
        let command = PluginManifest.Command(name: "y", usage: "y [z]", help: "help")
        let registered = IsolationManifest.header(of: command, declared: true)
        XCTAssertEqual(IsolationManifest.command(from: registered), command)
        XCTAssertEqual(registered["declared"]?.boolValue, true)
        for lie: JSONValue in [[1, .number(JSONNumber(UInt64(4_294_967_296)))], [1, .number(3.5)], [1, "3"], [1], [-1, 3]] {
            var lying = sent
            lying["abi"] = lie
            XCTAssertNil(IsolationManifest.ready(from: lying), lie.jsonText)
        }
        XCTAssertEqual(
            IsolationCodec.request(from: try XCTUnwrap(IsolationCodec.header(of: .fadeVolume(to: 0.25, milliseconds: 300)))),
            .fadeVolume(to: 0.25, milliseconds: 300))
        XCTAssertEqual(IsolationCodec.request(from: ["r": "volume", "v": .number(1e300)]), .setVolume(1.5), "clamped")
        XCTAssertNil(IsolationCodec.request(from: ["r": "volume", "v": "loud"]))
        XCTAssertNil(IsolationCodec.request(from: ["r": "explode"]))
    }
}
