/// The PCM a snapserver stream takes, written as snapserver writes it: "RATE:BITS:CHANNELS"
/// ("48000:16:2", its default). The plugin sends 16-bit little-endian samples only (the PCM tap
/// gives S16LE or F32LE, and snapserver reads no floats), so BITS must be 16.
public struct SnapcastSampleFormat: Sendable, Equatable, CustomStringConvertible {
    public static let standard = SnapcastSampleFormat(rate: 48000, channels: 2)
    public var rate: UInt32
    public var channels: UInt32
    public let bits: UInt32 = 16

    public init(rate: UInt32, channels: UInt32) {
        self.rate = rate
        self.channels = channels
    }

    /// Bytes of one frame (one sample of every channel).
    public var frameBytes: Int { Int(channels) * 2 }
    /// Bytes of one second of sound.
    public var bytesPerSecond: Int { Int(rate) * frameBytes }

    public var description: String { "\(rate):\(bits):\(channels)" }

    /// Nil when `text` is not RATE:16:CHANNELS with a rate from 8000 to 192000 and 1 to 8 channels
    /// (the PCM tap's range).
    public static func parse(_ text: String) -> SnapcastSampleFormat? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCII) }),
            let rate = UInt32(parts[0]), (8000...192_000).contains(rate),
            parts[1] == "16",
            let channels = UInt32(parts[2]), (1...8).contains(channels)
        else { return nil }
        return SnapcastSampleFormat(rate: rate, channels: channels)
    }
}
