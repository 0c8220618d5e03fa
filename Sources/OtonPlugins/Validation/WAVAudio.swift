import Foundation

/// The sound of a 16-bit PCM WAV file, for `oton plugins run --audio`: its rate, channels and
/// interleaved little-endian samples. Anything else is refused with what it is.
package struct WAVAudio {
    package let rate: UInt32
    package let channels: UInt32
    /// S16LE, interleaved.
    package let samples: [UInt8]

    package static let maximumBytes = 256 << 20

    package init(path: String) throws(ValidationFailure) {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationFailure(reason: "\(path): cannot be read") }
        guard data.count <= Self.maximumBytes else { throw ValidationFailure(reason: "\(path): larger than 256 MiB") }
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> UInt32 { UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw ValidationFailure(reason: "\(path): not a WAV file (no RIFF/WAVE header)")
        }
        var format: (tag: UInt16, channels: UInt16, rate: UInt32, bits: UInt16)?
        var position = 12
        while position + 8 <= bytes.count {
            let size = Int(u32(position + 4))
            let body = position + 8
            guard body + size <= bytes.count || bytes[position..<position + 4].elementsEqual("data".utf8) else { break }
            if bytes[position..<position + 4].elementsEqual("fmt ".utf8), size >= 16 {
                format = (u16(body), u16(body + 2), u32(body + 4), u16(body + 14))
            } else if bytes[position..<position + 4].elementsEqual("data".utf8) {
                guard let format else { throw ValidationFailure(reason: "\(path): the data chunk comes before the fmt chunk") }
                guard format.tag == 1, format.bits == 16, format.channels >= 1, format.channels <= 8, format.rate >= 1000, format.rate <= 384_000 else {
                    throw ValidationFailure(
                        reason:
                            "\(path): \(format.bits)-bit, format \(format.tag), \(format.channels) channels at \(format.rate) Hz; give 16-bit PCM (e.g. gst-launch-1.0 … ! audioconvert ! audio/x-raw,format=S16LE ! wavenc ! filesink)"
                    )
                }
                let end = min(bytes.count, body + size)
                let frameBytes = Int(format.channels) * 2
                rate = format.rate
                channels = UInt32(format.channels)
                samples = Array(bytes[body..<body + (end - body) / frameBytes * frameBytes])
                return
            }
            position = body + size + (size & 1)
        }
        throw ValidationFailure(reason: "\(path): no data chunk")
    }

    /// Writes `samples` (S16LE interleaved) as a WAV file at `path`.
    package static func write(path: String, rate: UInt32, channels: UInt32, samples: [UInt8]) throws(ValidationFailure) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(44 + samples.count)
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        bytes.append(contentsOf: "RIFF".utf8)
        u32(UInt32(36 + samples.count))
        bytes.append(contentsOf: "WAVEfmt ".utf8)
        u32(16)
        u16(1)
        u16(UInt16(channels))
        u32(rate)
        u32(rate * channels * 2)
        u16(UInt16(channels * 2))
        u16(16)
        bytes.append(contentsOf: "data".utf8)
        u32(UInt32(samples.count))
        bytes.append(contentsOf: samples)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw ValidationFailure(reason: "\(path): cannot be written") }
    }
}
