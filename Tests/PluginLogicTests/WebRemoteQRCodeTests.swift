@testable import WebRemoteLogic
import XCTest

/// The QR encoder against the standard's known values: the Reed–Solomon codewords of the ISO
/// example "HELLO WORLD" at 1-M, the format-information table, and the symbol's fixed patterns.
final class WebRemoteQRCodeTests: XCTestCase {
    func testReedSolomonMatchesTheStandardsHelloWorldExample() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        let ecc = ReedSolomon.remainder(data, divisor: ReedSolomon.divisor(degree: 10))
        XCTAssertEqual(ecc, [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    func testFormatBitsMatchTheStandardsTable() {
        XCTAssertEqual(QRCode.formatBits(correction: .low, mask: 0), 0b111011111000100)
        XCTAssertEqual(QRCode.formatBits(correction: .low, mask: 7), 0b110100101110110)
        XCTAssertEqual(QRCode.formatBits(correction: .medium, mask: 0), 0b101010000010010)
        XCTAssertEqual(QRCode.formatBits(correction: .medium, mask: 5), 0b100000011001110)
    }

    func testByteModeDataCodewordsArePaddedAsTheStandardSays() {
        // "ab": mode 0100, count 00000010, 0x61 0x62, terminator, then EC 11 padding to 19 codewords (1-L).
        let codewords = QRCode.dataCodewords(Array("ab".utf8), capacity: 19)
        XCTAssertEqual(Array(codewords.prefix(5)), [0x40, 0x26, 0x16, 0x20, 0xEC])
        XCTAssertEqual(codewords.count, 19)
        XCTAssertEqual(codewords.last, 0xEC)
    }

    func testAURLPicksTheSmallestVersionAndDrawsTheFixedPatterns() throws {
        let url = "http://192.168.1.20:8765/?token=0123456789abcdef0123456789abcdef"
        let code = try QRCode(encoding: url)
        XCTAssertEqual(code.version, 4, "\(url.utf8.count) bytes fit 4-L (78) and not 3-L (53)")
        XCTAssertEqual(code.size, 33)
        for (cx, cy) in [(3, 3), (code.size - 4, 3), (3, code.size - 4)] {
            XCTAssertTrue(code.modules[cy][cx], "finder centre")
            XCTAssertFalse(code.modules[cy - 2][cx], "finder's light ring")
            XCTAssertTrue(code.modules[cy - 3][cx], "finder's dark ring")
        }
        XCTAssertTrue(code.modules[code.size - 8][8], "the dark module")
        for index in 8 ..< code.size - 8 { XCTAssertEqual(code.modules[6][index], index % 2 == 0, "timing at \(index)") }
        // The format bits drawn next to the top-left finder decode to level L and the chosen mask.
        var bits = 0
        for index in 0 ... 5 { bits |= (code.modules[index][8] ? 1 : 0) << index }
        bits |= (code.modules[7][8] ? 1 : 0) << 6
        bits |= (code.modules[8][8] ? 1 : 0) << 7
        bits |= (code.modules[8][7] ? 1 : 0) << 8
        for index in 9 ..< 15 { bits |= (code.modules[8][14 - index] ? 1 : 0) << index }
        XCTAssertEqual(bits, QRCode.formatBits(correction: .low, mask: code.mask))
    }

    func testVersionSixSplitsIntoTwoInterleavedBlocks() throws {
        let data = (0 ..< 136).map { UInt8($0) }
        let codewords = QRCode.interleaved(data, version: 6, correction: .low)
        XCTAssertEqual(codewords.count, 172)
        XCTAssertEqual(Array(codewords.prefix(4)), [0, 68, 1, 69], "data alternates between the blocks")
        let firstBlockECC = ReedSolomon.remainder(Array(data[0 ..< 68]), divisor: ReedSolomon.divisor(degree: 18))
        XCTAssertEqual(codewords[136], firstBlockECC[0])
    }

    func testTooLongTextIsAClearErrorNotACrash() {
        XCTAssertThrowsError(try QRCode(encoding: String(repeating: "x", count: 200))) { error in
            XCTAssertTrue("\(error)".contains("200 bytes"), "\(error)")
        }
    }

    func testTerminalRenderingUsesTwoModuleRowsPerLine() throws {
        let code = try QRCode(encoding: "http://127.0.0.1:8765/")
        let text = QRTerminalRendering.render(code, quietZone: 2)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, (code.size + 4 + 1) / 2)
        XCTAssertTrue(lines.allSatisfy { $0.count == code.size + 4 })
        XCTAssertTrue(lines[0].allSatisfy { $0 == "█" }, "the quiet zone is light")
        // Read the half blocks back: drawn means light, so every module comes back inverted.
        for y in 0 ..< code.size {
            let row = Array(lines[(y + 2) / 2])
            for x in 0 ..< code.size {
                let cell = row[x + 2]
                let lightHalf = (y + 2) % 2 == 0 ? (cell == "█" || cell == "▀") : (cell == "█" || cell == "▄")
                XCTAssertEqual(lightHalf, !code.modules[y][x], "module \(x),\(y)")
            }
        }
    }
}
