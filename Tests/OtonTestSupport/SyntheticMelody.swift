import Foundation

/// Music-like sound for the recognition tests: a melody of notes in a major scale with attack and
/// decay, four harmonics and a bass line, its tempo, key, rhythm and timbre drawn from `seed`.
/// Different seeds are different songs in the same scales and timbres: the hard case for a
/// chroma-based fingerprint, which sees pitch classes over time.
public enum SyntheticMelody {
    /// Mono 16-bit samples at `rate`.
    public static func samples(seed: UInt64, seconds: Double, rate: Int = 22050) -> [Int16] {
        var random = SplitMix(seed: seed &* 0x9E37_79B9 &+ 17)
        let scale = [0, 2, 4, 5, 7, 9, 11]
        let base = [45, 48, 50, 52, 55, 57][random.below(6)]
        let beat = 0.18 + Double(random.below(1000)) / 1000 * 0.22
        let decay = 2 + Double(random.below(1000)) / 1000 * 4
        let brightness = 0.4 + Double(random.below(1000)) / 1000 * 0.5
        let count = Int(seconds * Double(rate))
        var mixed = [Double](repeating: 0, count: count)
        var start = 0.0
        while start < seconds {
            let length = beat * [1, 1, 2, 0.5, 1.5][random.below(5)]
            let note = base + 12 * random.below(2) + scale[random.below(scale.count)]
            let frequency = 440 * pow(2, Double(note - 69) / 12)
            let first = Int(start * Double(rate))
            let end = min(count, first + Int(length * Double(rate)))
            var harmonicAmplitude = [Double](repeating: 0, count: 5)
            for harmonic in 1...4 { harmonicAmplitude[harmonic] = 0.6 * pow(brightness, Double(harmonic - 1)) }
            for index in first..<max(first, end) {
                let time = Double(index - first) / Double(rate)
                let envelope = min(1, time / 0.01) * exp(-time * decay)
                var value = 0.3 * Table.sine(frequency / 4 * time)
                for harmonic in 1...4 { value += harmonicAmplitude[harmonic] * Table.sine(frequency * Double(harmonic) * time) }
                mixed[index] += envelope * value
            }
            start += length
        }
        let peak = mixed.reduce(0) { max($0, abs($1)) }
        let scaleToInt = peak > 0 ? 0.9 * 32767 / peak : 0
        return mixed.map { Int16(($0 * scaleToInt).rounded()) }
    }

    /// `samples` played `factor` times as fast (pitch and tempo, as a record sped up), by linear interpolation.
    public static func spedUp(_ samples: [Int16], by factor: Double) -> [Int16] {
        let count = Int(Double(samples.count) / factor)
        return (0..<count).map { index in
            let position = Double(index) * factor
            let low = min(samples.count - 1, Int(position))
            let high = min(samples.count - 1, low + 1)
            let fraction = position - Double(low)
            return Int16((Double(samples[low]) * (1 - fraction) + Double(samples[high]) * fraction).rounded())
        }
    }

    /// A 16-bit mono WAV file of `samples`.
    public static func writeWAV(_ samples: [Int16], rate: Int, to path: String) throws {
        var data = Data()
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func put16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        put32(UInt32(36 + samples.count * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        put32(16)
        put16(1)
        put16(1)
        put32(UInt32(rate))
        put32(UInt32(rate * 2))
        put16(2)
        put16(16)
        data.append(contentsOf: Array("data".utf8))
        put32(UInt32(samples.count * 2))
        for sample in samples { put16(UInt16(bitPattern: sample)) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// `samples` encoded by ffmpeg with `codec` (e.g. ["-c:a", "libvorbis", "-b:a", "64k"]) into a
    /// `.ext` file and decoded again to mono 16-bit at `outputRate`: what a listener hears of them
    /// through that codec. The files stay in `directory`, named `name`.
    public static func throughCodec(
        _ samples: [Int16], rate: Int, codec: [String], ext: String, name: String, in directory: String, outputRate: Int = 11025
    ) throws -> [Int16] {
        let wav = directory + "/\(name).wav"
        let encoded = directory + "/\(name).\(ext)"
        let raw = directory + "/\(name).raw"
        try writeWAV(samples, rate: rate, to: wav)
        for arguments in [
            ["-i", wav] + codec + [encoded], ["-i", encoded, "-f", "s16le", "-ac", "1", "-ar", String(outputRate), raw],
        ] {
            let result = try runProcess("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + arguments)
            guard result.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "ffmpeg: \(result.stderr)"]) }
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    private enum Table {
        static let size = 4096
        static let values: [Double] = (0..<size).map { sin(2 * Double.pi * Double($0) / Double(size)) }
        /// sin(2π·cycles), from a table (debug builds make every sample count).
        static func sine(_ cycles: Double) -> Double {
            values[Int((cycles - cycles.rounded(.down)) * Double(size)) & (size - 1)]
        }
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }
}
