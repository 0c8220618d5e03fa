import CQREncode

/// A QR code of short text such as a URL, made by libqrencode: byte mode, error correction L or
/// M, the smallest version that holds it, at most version 6 (up to 134 bytes at L) so that it
/// stays readable in a terminal. `modules[y][x]` is true for a dark module.
public struct QRCode: Sendable, Equatable {
    public enum Correction: Sendable {
        case low, medium

        var level: QRecLevel { self == .low ? QR_ECLEVEL_L : QR_ECLEVEL_M }
    }

    public struct TooLong: Error, CustomStringConvertible {
        public let description: String
    }

    /// The largest version drawn; 6 is 41 modules a side, 23 terminal lines with the quiet zone.
    public static let maximumVersion: Int32 = 6

    public let version: Int
    public let modules: [[Bool]]
    public var size: Int { modules.count }

    public init(encoding text: String, correction: Correction = .low) throws(TooLong) {
        let bytes = Array(text.utf8)
        let symbol = bytes.withUnsafeBufferPointer { QRcode_encodeData(Int32($0.count), $0.baseAddress, 0, correction.level) }
        guard let symbol else {
            throw TooLong(description: "libqrencode could not encode \(bytes.count) bytes")
        }
        defer { QRcode_free(symbol) }
        guard symbol.pointee.version <= Self.maximumVersion else {
            throw TooLong(description: "\(bytes.count) bytes do not fit a version 1–\(Self.maximumVersion) QR code")
        }
        let width = Int(symbol.pointee.width)
        // libqrencode gives one byte per module; its lowest bit is set for a dark one.
        let data = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        version = Int(symbol.pointee.version)
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }
}
