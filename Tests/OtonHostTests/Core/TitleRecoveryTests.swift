import Foundation
import XCTest

@testable import OtonHost

/// Titles GStreamer (icydemux) or Icecast's status-json already turned into
/// text by reading unknown bytes as Latin-1: the original bytes are recovered
/// and decoded again.
final class TitleRecoveryTests: XCTestCase {
    /// What icydemux makes of bytes that are not UTF-8: each byte becomes U+00XX.
    private func asGStreamerReadsIt(_ bytes: [UInt8]) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    private let kinoCP1251: [UInt8] = [
        0xCA, 0xE8, 0xED, 0xEE, 0x20, 0x96, 0x20, 0xC3, 0xF0, 0xF3, 0xEF, 0xEF, 0xE0, 0x20,
        0xEA, 0xF0, 0xEE, 0xE2, 0xE8,
    ]

    func testWindows1251MojibakeBecomesCyrillic() {
        let garbled = asGStreamerReadsIt(kinoCP1251)
        XCTAssertEqual(garbled, "Êèíî \u{96} Ãðóïïà êðîâè")
        let decoded = TitleByteDecoder.decode(convertedText: garbled)
        XCTAssertEqual(decoded.text, "Кино – Группа крови")
        XCTAssertEqual(decoded.encoding, .windows1251)
    }

    func testLatin1WithAccentsStaysLatin1() {
        let bytes: [UInt8] = Array("M".utf8) + [0xFC] + Array("ller - Cora".utf8) + [0xE7, 0xE3] + Array("o".utf8)
        let decoded = TitleByteDecoder.decode(convertedText: asGStreamerReadsIt(bytes))
        XCTAssertEqual(decoded.text, "Müller - Coração")
        XCTAssertEqual(decoded.encoding, .latin1)
    }

    func testValidUTF8WithCharactersAboveU00FFIsUntouched() {
        for title in ["Кино – Группа крови", "東京事変 - 群青日和", "Beyoncé — Halo ✓"] {
            let decoded = TitleByteDecoder.decode(convertedText: title)
            XCTAssertEqual(decoded.text, title)
            XCTAssertEqual(decoded.encoding, .utf8)
        }
    }

    func testASCIIIsUntouched() {
        XCTAssertEqual(TitleByteDecoder.decode(convertedText: "Artist - Title (Remix) [2024]").text, "Artist - Title (Remix) [2024]")
    }

    func testUTF8ThatWasReadAsLatin1IsRepaired() {
        // "Café" sent as UTF-8 but read as Latin-1 by a server: "CafÃ©".
        XCTAssertEqual(TitleByteDecoder.decode(convertedText: "CafÃ©").text, "Café")
    }

    func testKOI8RNeedsTheStationSetting() {
        let koi8: [UInt8] = [0xEB, 0xC9, 0xCE, 0xCF]  // "Кино" in KOI8-R
        let garbled = asGStreamerReadsIt(koi8)
        let decoded = TitleByteDecoder.decode(convertedText: garbled, setting: .koi8r)
        XCTAssertEqual(decoded.text, "Кино")
        XCTAssertEqual(decoded.encoding, .koi8r)
    }

    func testSettingOverridesTheGuess() {
        let bytes: [UInt8] = [0xC0, 0x6C, 0x66, 0xE0]  // high bytes next to ASCII letters: the guess says Latin-1
        XCTAssertEqual(TitleByteDecoder.decode(convertedText: asGStreamerReadsIt(bytes)).text, "Àlfà")
        XCTAssertEqual(TitleByteDecoder.decode(convertedText: asGStreamerReadsIt(bytes), setting: .windows1251).text, "\u{0410}lf\u{0430}")
        XCTAssertEqual(TitleByteDecoder.decode(convertedText: "Àlfà", setting: .utf8).text, "Àlfà")
        XCTAssertEqual(TitleByteDecoder.decode(convertedText: "Àlfà", setting: .latin1).text, "Àlfà")
    }

    func testHugeInputIsBounded() {
        let long = String(repeating: "ê", count: 100_000)
        let decoded = TitleByteDecoder.decode(convertedText: long)
        XCTAssertLessThanOrEqual(decoded.text.unicodeScalars.count, TitleByteDecoder.maxInputBytes)
    }

    func testIcecastStatusTitlesAreRecoveredToo() throws {
        let garbled = asGStreamerReadsIt(kinoCP1251)
        let json = #"{"icestats":{"source":{"listenurl":"http://127.0.0.1:8000/live","title":"\#(garbled)"}}}"#
        let status = try StationStatusParser.parse(Data(json.utf8), format: .icecast)
        XCTAssertEqual(status.title, "Кино – Группа крови")
    }

    // MARK: plugins.json

    func testTitleEncodingIsReadFromTheStation() throws {
        let text =
            #"{"stations":[{"name":"A","url":"http://a/","title_encoding":"windows-1251"},{"name":"B","url":"http://b/","title_encoding":"KOI8-R"},{"name":"C","url":"http://c/"}]}"#
        let config = try ConfigLoader.parse(Data(text.utf8), file: "p.json")
        XCTAssertEqual(config.stations.map(\.titleEncoding), [.windows1251, .koi8r, .auto])
    }

    func testUnknownTitleEncodingNamesTheAcceptedValues() {
        let text = #"{"stations":[{"name":"A","url":"http://a/","title_encoding":"ebcdic"}]}"#
        XCTAssertThrowsError(try ConfigLoader.parse(Data(text.utf8), file: "p.json")) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("stations[0].title_encoding"), message)
            XCTAssertTrue(message.contains("ebcdic"), message)
            XCTAssertTrue(message.contains("\"windows-1251\"") && message.contains("\"koi8-r\"") && message.contains("\"auto\""), message)
        }
    }
}
