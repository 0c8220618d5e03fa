import Foundation

/// Interleaved signed 16-bit little-endian PCM as the host's PCM tap sends it.
public struct PCMFormat: Equatable, Sendable {
    public var rate: Int
    public var channels: Int
    public var bytesPerFrame: Int { channels * 2 }

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
    }

    /// Reads rate and channels from caps text such as
    /// "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, rate=(int)44100, channels=(int)2".
    /// nil unless the caps are S16LE raw audio with a sane rate and channel count.
    public init?(caps: String) {
        let lower = caps.lowercased()
        guard lower.hasPrefix("audio/x-raw"), lower.contains("s16le") else { return nil }
        func integer(_ key: String) -> Int? {
            for part in lower.split(separator: ",") {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == key else { continue }
                var value = Substring(pair[1].trimmingCharacters(in: .whitespaces))
                if value.hasPrefix("(int)") { value = value.dropFirst(5) }
                return Int(value)
            }
            return nil
        }
        guard let rate = integer("rate"), (1000...384_000).contains(rate),
            let channels = integer("channels"), (1...8).contains(channels)
        else { return nil }
        self.init(rate: rate, channels: channels)
    }
}

/// Cuts PCM into units of 10 ms (whole sample frames), each with its
/// loudness, so that a file can start at any 10 ms and the quietest stretch
/// near a title change can be found.
public struct PCMFramer: StreamFramer {
    public let format: PCMFormat
    private var pending: [UInt8] = []
    private let unitBytes: Int

    public init(format: PCMFormat) {
        self.format = format
        unitBytes = max(format.rate / 100, 1) * format.bytesPerFrame
    }

    public mutating func push(_ bytes: [UInt8]) -> [StreamUnit] {
        pending.append(contentsOf: bytes)
        var units: [StreamUnit] = []
        var start = 0
        while pending.count - start >= unitBytes {
            units.append(unit(Array(pending[start..<start + unitBytes])))
            start += unitBytes
        }
        pending.removeFirst(start)
        return units
    }

    /// Whole frames left over become a last, shorter unit; a torn frame is dropped.
    public mutating func flush() -> [UInt8] {
        let whole = pending.count - pending.count % format.bytesPerFrame
        let rest = Array(pending[0..<whole])
        pending = []
        return rest
    }

    private func unit(_ bytes: [UInt8]) -> StreamUnit {
        let frames = bytes.count / format.bytesPerFrame
        return StreamUnit(
            bytes: bytes, durationNanoseconds: Int64(frames) * 1_000_000_000 / Int64(format.rate),
            level: Self.meanSquare(bytes))
    }

    /// Mean square of the samples, 0 (digital silence) … 1 (full scale).
    public static func meanSquare(_ bytes: [UInt8]) -> Double {
        let count = bytes.count / 2
        guard count > 0 else { return 0 }
        var sum = 0.0
        bytes.withUnsafeBytes { raw in
            for index in 0..<count {
                let sample = Double(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))) / 32768
                sum += sample * sample
            }
        }
        return sum / Double(count)
    }
}
