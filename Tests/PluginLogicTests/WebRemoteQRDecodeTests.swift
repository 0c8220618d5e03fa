import Foundation
import OtonTestSupport
import WebRemoteLogic
import XCTest

/// Every QR code libqrencode makes for us, versions 1–6 at levels L and M, read back by a real decoder:
/// zbarimg (Debian's zbar-tools, installed by scripts/bootstrap) on a PGM image of the modules.
final class WebRemoteQRDecodeTests: XCTestCase {
    func testZbarReadsBackEveryVersionAndLevel() throws {
        let zbar = "/usr/bin/zbarimg"
        guard FileManager.default.isExecutableFile(atPath: zbar) else {
            throw NSError(domain: "qr", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(zbar) is missing: run scripts/bootstrap (zbar-tools)"])
        }
        let directory = try TemporaryDirectory(self)
        var versions: Set<String> = []
        for (length, correction) in [
            (10, QRCode.Correction.low), (30, .low), (50, .low), (70, .low), (100, .low), (130, .low),
            (12, .medium), (60, .medium), (100, .medium),
        ] {
            let text = "http://192.168.1.20:8765/?token=" + String(repeating: "0123456789abcdef", count: 9)
            let sample = String(text.prefix(length))
            let code = try QRCode(encoding: sample, correction: correction)
            versions.insert("\(code.version)-\(correction)")
            let path = directory.file("qr-\(length)-\(correction).pgm")
            try Self.pgm(code).write(to: URL(fileURLWithPath: path))
            let result = try runProcess(zbar, ["--raw", "-q", path])
            XCTAssertEqual(result.status, 0, "zbar found no code in version \(code.version) \(correction): \(result.stderr)")
            XCTAssertEqual(result.stdout.trimmingCharacters(in: .newlines), sample, "version \(code.version) \(correction)")
        }
        XCTAssertEqual(versions.count, 9, "\(versions.sorted())")
    }

    /// A binary-free greyscale image: 4 pixels per module, 4 modules of quiet zone.
    static func pgm(_ code: QRCode) -> Data {
        let scale = 4, quiet = 4
        let side = (code.size + 2 * quiet) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<code.size {
            for x in 0..<code.size where code.modules[y][x] {
                for dy in 0..<scale {
                    for dx in 0..<scale { pixels[((y + quiet) * scale + dy) * side + (x + quiet) * scale + dx] = 0 }
                }
            }
        }
        return Data("P5\n\(side) \(side)\n255\n".utf8) + Data(pixels)
    }
}
