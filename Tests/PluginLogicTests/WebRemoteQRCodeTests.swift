import XCTest

@testable import WebRemoteLogic

/// The QR code libqrencode makes for a URL: the smallest version, the symbol's fixed patterns, a
/// clear error for text too long, and its drawing in a terminal (zbarimg reads the codes back in
/// WebRemoteQRDecodeTests).
final class WebRemoteQRCodeTests: XCTestCase {
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
        for index in 8..<code.size - 8 { XCTAssertEqual(code.modules[6][index], index % 2 == 0, "timing at \(index)") }
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
        for y in 0..<code.size {
            let row = Array(lines[(y + 2) / 2])
            for x in 0..<code.size {
                let cell = row[x + 2]
                let lightHalf = (y + 2) % 2 == 0 ? (cell == "█" || cell == "▀") : (cell == "█" || cell == "▄")
                XCTAssertEqual(lightHalf, !code.modules[y][x], "module \(x),\(y)")
            }
        }
    }
}
