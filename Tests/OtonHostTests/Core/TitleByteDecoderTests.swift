import Foundation
import XCTest

@testable import OtonHost

final class TitleByteDecoderTests: XCTestCase {
    private func cp1251(_ text: String) -> [UInt8] {
        Array(text.data(using: .windowsCP1251)!)
    }

    private func latin1(_ text: String) -> [UInt8] {
        Array(text.data(using: .isoLatin1)!)
    }

    func testValidUTF8StaysUTF8() {
        let decoded = TitleByteDecoder.decode(Array("Кино – Группа крови ♫".utf8))
        XCTAssertEqual(decoded, DecodedTitle(text: "Кино – Группа крови ♫", encoding: .utf8))
    }

    func testASCIIIsUTF8() {
        XCTAssertEqual(TitleByteDecoder.decode(Array("Daft Punk - One More Time".utf8)).encoding, .utf8)
    }

    func testEmptyInput() {
        XCTAssertEqual(TitleByteDecoder.decode([]), DecodedTitle(text: "", encoding: .utf8))
    }

    func testWindows1251Russian() {
        let decoded = TitleByteDecoder.decode(cp1251("Кино - Группа крови"))
        XCTAssertEqual(decoded, DecodedTitle(text: "Кино - Группа крови", encoding: .windows1251))
    }

    func testWindows1251WithYoAndGuillemets() {
        let text = "Ёлка – «Прованс»"
        XCTAssertEqual(TitleByteDecoder.decode(cp1251(text)), DecodedTitle(text: text, encoding: .windows1251))
    }

    func testWindows1251MixedWithLatinArtist() {
        let text = "DJ Smash - Ты"
        XCTAssertEqual(TitleByteDecoder.decode(cp1251(text)), DecodedTitle(text: text, encoding: .windows1251))
    }

    func testWindows1251Ukrainian() {
        let text = "Океан Ельзи - Обійми"
        XCTAssertEqual(TitleByteDecoder.decode(cp1251(text)).text, text)
    }

    func testLatin1German() {
        XCTAssertEqual(
            TitleByteDecoder.decode(latin1("Herbert Grönemeyer - Männer")),
            DecodedTitle(text: "Herbert Grönemeyer - Männer", encoding: .latin1))
    }

    func testLatin1PortugueseWithTwoAccentsInARow() {
        XCTAssertEqual(TitleByteDecoder.decode(latin1("Coração Valente")).text, "Coração Valente")
    }

    func testLatin1ShortAccentHeavyWord() {
        XCTAssertEqual(TitleByteDecoder.decode(latin1("Été")).text, "Été")
    }

    func testLatin1WithSymbols() {
        XCTAssertEqual(TitleByteDecoder.decode(latin1("Café © 2024")).text, "Café © 2024")
    }

    func testWindows1252PunctuationInLatin1Path() {
        // 0x93/0x94 are curly quotes, 0x96 an en dash, 0x80 the euro sign in Windows-1252.
        let bytes: [UInt8] = Array("Beyonc".utf8) + [0xE9, 0x20, 0x96, 0x20, 0x93] + Array("Halo".utf8) + [0x94, 0x20, 0x80]
        XCTAssertEqual(TitleByteDecoder.decode(bytes), DecodedTitle(text: "Beyoncé – “Halo” €", encoding: .latin1))
    }

    func testTruncatedUTF8IsRepaired() {
        var bytes = Array("Земфира - Искала".utf8)
        bytes.removeLast()  // cut the last Cyrillic letter in half
        XCTAssertEqual(TitleByteDecoder.decode(bytes), DecodedTitle(text: "Земфира - Искал", encoding: .utf8Repaired))
    }

    func testLoneSurrogateInsideUTF8IsDropped() {
        let bytes = Array("Привет ".utf8) + [0xED, 0xA0, 0x80] + Array(" мир".utf8)
        XCTAssertEqual(TitleByteDecoder.decode(bytes), DecodedTitle(text: "Привет  мир", encoding: .utf8Repaired))
    }

    func testLoneSurrogateAloneDoesNotCrash() {
        let decoded = TitleByteDecoder.decode([0xED, 0xA0, 0x80])
        XCTAssertEqual(decoded.encoding, .latin1)
        XCTAssertEqual(decoded.text, "í\u{A0}€")
    }

    func testOverlongEncodingIsNotAcceptedAsUTF8() {
        // C0 AF is an overlong "/"; it must not turn into a slash.
        let decoded = TitleByteDecoder.decode(Array("a".utf8) + [0xC0, 0xAF] + Array("b".utf8))
        XCTAssertNotEqual(decoded.encoding, .utf8)
        XCTAssertFalse(decoded.text.contains("/"))
    }

    func testOverlongNULIsNotAcceptedAsUTF8() {
        let decoded = TitleByteDecoder.decode([0x41, 0xC0, 0x80, 0x42])
        XCTAssertFalse(decoded.text.unicodeScalars.contains("\0"))
    }

    func testEmbeddedNULIsValidUTF8() {
        XCTAssertEqual(TitleByteDecoder.decode([0x41, 0x00, 0x42]).text, "A\0B")
    }

    func testEveryByteValueDecodesWithoutCrashing() {
        for byte in UInt8.min...UInt8.max {
            _ = TitleByteDecoder.decode([byte])
            _ = TitleByteDecoder.decode([byte, byte, byte, 0x41, byte])
        }
    }

    func testRandomGarbageNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = TitleByteDecoder.decode(bytes)
        }
    }

    func testHugeInputIsCappedOnACharacterBoundary() {
        let bytes = Array(String(repeating: "я", count: 20_000).utf8)  // 40,000 bytes
        let decoded = TitleByteDecoder.decode(bytes)
        XCTAssertEqual(decoded.encoding, .utf8)
        XCTAssertEqual(decoded.text.count, TitleByteDecoder.maxInputBytes / 2)
    }

    func testHugeInputCutMidCharacterBacksOff() {
        let bytes = Array("a".utf8) + Array(String(repeating: "я", count: 10_000).utf8)
        let decoded = TitleByteDecoder.decode(bytes)
        XCTAssertEqual(decoded.encoding, .utf8)
        XCTAssertFalse(decoded.text.contains("\u{FFFD}"))
    }

    // MARK: Code pages

    func testWindows1251TableMatchesFoundation() throws {
        for byte in UInt8(0x80)...UInt8(0xFF) where byte != 0x98 {
            let expected = try XCTUnwrap(String(data: Data([byte]), encoding: .windowsCP1251))
            XCTAssertEqual(LegacyCodePage.windows1251.decode([byte]), expected, "byte \(byte)")
        }
        XCTAssertNil(LegacyCodePage.windows1251.scalar(for: 0x98))
    }

    func testLatin1PathMatchesWindows1252AndLatin1() throws {
        for byte in UInt8(0x80)...UInt8(0xFF) {
            let decoded = LegacyCodePage.latin1.decode([byte])
            if let cp1252 = String(data: Data([byte]), encoding: .windowsCP1252),
                cp1252.unicodeScalars.first.map({ $0.value > 0x9F }) ?? false
            {
                XCTAssertEqual(decoded, cp1252, "byte \(byte)")
            } else {
                XCTAssertEqual(decoded, String(Unicode.Scalar(byte)), "byte \(byte)")
            }
        }
    }

    func testASCIIIsIdentityInBothCodePages() {
        let ascii = Array(UInt8(0)...UInt8(0x7F))
        let expected = String(decoding: ascii, as: UTF8.self)
        for page in LegacyCodePage.allCases {
            XCTAssertEqual(page.decode(ascii), expected)
        }
    }

    // MARK: Heuristic

    func testHeuristicPrefersLatin1WhenMiddleBytesAbound() {
        XCTAssertEqual(TitleByteDecoder.guessLegacyCodePage([0xC0, 0xAF, 0xB0]), .latin1)
    }

    func testHeuristicWithoutHighBytesIsLatin1() {
        XCTAssertEqual(TitleByteDecoder.guessLegacyCodePage(Array("abc".utf8) + [0xA9]), .latin1)
    }

    func testHeuristicLoneAmbiguousLetterIsCyrillic() {
        XCTAssertEqual(TitleByteDecoder.guessLegacyCodePage([0xDF]), .windows1251)
    }
}
