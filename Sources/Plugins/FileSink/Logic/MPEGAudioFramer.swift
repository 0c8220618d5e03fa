/// Splits MPEG-1/2/2.5 audio (layers I–III) and AAC ADTS into frames. A frame
/// is accepted when the header is valid and, while searching for sync, the
/// header right after it is valid too (so sync words inside audio data are not
/// taken for frames). Bytes that are not frames are skipped.
public struct MPEGAudioFramer: StreamFramer {
    private var pending: [UInt8] = []
    private var start = 0
    private var synced = false
    /// Bytes skipped while searching for a frame header (garbage, stray tags).
    public private(set) var skippedBytes = 0
    public private(set) var switchedTo: StreamContainer?

    public init() {}

    public mutating func push(_ bytes: [UInt8]) -> [StreamUnit] {
        pending.append(contentsOf: bytes)
        var units: [StreamUnit] = []
        while pending.count - start >= 7, switchedTo == nil {
            guard let header = MPEGFrameHeader(pending, at: start) else {
                switch FormatSwitch.at(pending, start, from: .mpegAudio) {
                case let .to(container):
                    switchedTo = container
                    continue
                case .wait:
                    return units
                case .no:
                    break
                }
                synced = false
                start += 1
                skippedBytes += 1
                continue
            }
            let end = start + header.length
            if !synced {
                // Confirm with the next header before trusting a sync word.
                guard pending.count >= end + 7 else { break }
                guard let next = MPEGFrameHeader(pending, at: end), next.isADTS == header.isADTS else {
                    start += 1
                    skippedBytes += 1
                    continue
                }
                synced = true
            }
            guard pending.count >= end else { break }
            if header.isStreamSummary(pending, at: start) {
                // A Xing/Info/VBRI frame counts the frames and bytes of the whole stream (a file served as a
                // stream): kept, it made a 7.9 s recording read as 100 s (issue 39 §3). It holds no audio.
                var unit = StreamUnit(bytes: [])
                unit.streamLength = header.length
                units.append(unit)
            } else {
                units.append(StreamUnit(bytes: Array(pending[start ..< end]), durationNanoseconds: header.durationNanoseconds))
            }
            start = end
        }
        compact()
        return units
    }

    public mutating func flush() -> [UInt8] {
        defer { pending = []; start = 0; synced = false }
        return Array(pending[start...])
    }

    private mutating func compact() {
        if start > 0 && switchedTo == nil && (start >= 65536 || start == pending.count) {
            pending.removeFirst(start)
            start = 0
        }
    }
}

/// A parsed MPEG audio or ADTS frame header.
public struct MPEGFrameHeader: Equatable, Sendable {
    public var length: Int
    public var samples: Int
    public var sampleRate: Int
    public var isADTS: Bool
    /// Bits a second (MPEG audio; 0 for ADTS, whose header does not say).
    public var bitrate = 0
    /// MPEG version and layer ("MPEG-1 layer III"), or "AAC" for ADTS.
    public var codec = "AAC"

    public var durationNanoseconds: Int64 { Int64(samples) * 1_000_000_000 / Int64(sampleRate) }

    private static let bitratesV1: [[Int]] = [
        [], // layer index 0 is reserved
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],    // layer III
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],   // layer II
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], // layer I
    ]
    private static let bitratesV2: [[Int]] = [
        [],
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    ]
    private static let adtsRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Parses the header at `index`, or nil when it is not a valid one.
    public init?(_ bytes: [UInt8], at index: Int) {
        guard index + 7 <= bytes.count, bytes[index] == 0xFF, bytes[index + 1] & 0xE0 == 0xE0 else { return nil }
        let b1 = Int(bytes[index + 1]), b2 = Int(bytes[index + 2])
        let version = (b1 >> 3) & 3 // 0 MPEG-2.5, 1 reserved, 2 MPEG-2, 3 MPEG-1
        let layer = (b1 >> 1) & 3   // 1 III, 2 II, 3 I, 0: ADTS when the sync is 12 bits
        if layer == 0 {
            // ADTS: 1111 1111 1111 V00P, length in 13 bits.
            guard b1 & 0xF6 == 0xF0 else { return nil }
            let rateIndex = (b2 >> 2) & 0xF
            guard rateIndex < Self.adtsRates.count else { return nil }
            let b3 = Int(bytes[index + 3]), b4 = Int(bytes[index + 4]), b5 = Int(bytes[index + 5])
            let length = ((b3 & 3) << 11) | (b4 << 3) | (b5 >> 5)
            guard length >= 7 else { return nil }
            let blocks = (Int(bytes[index + 6]) & 3) + 1
            self.init(length: length, samples: 1024 * blocks, sampleRate: Self.adtsRates[rateIndex], isADTS: true)
            return
        }
        guard version != 1 else { return nil }
        let bitrateIndex = b2 >> 4
        let rateIndex = (b2 >> 2) & 3
        guard bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil } // free format is not cut
        let padding = (b2 >> 1) & 1
        let baseRates = [44100, 48000, 32000][rateIndex]
        let sampleRate = version == 3 ? baseRates : version == 2 ? baseRates / 2 : baseRates / 4
        let bitrate = (version == 3 ? Self.bitratesV1 : Self.bitratesV2)[layer][bitrateIndex] * 1000
        let length: Int
        let samples: Int
        switch layer {
        case 3: // layer I
            length = (12 * bitrate / sampleRate + padding) * 4
            samples = 384
        case 2: // layer II
            length = 144 * bitrate / sampleRate + padding
            samples = 1152
        default: // layer III
            length = (version == 3 ? 144 : 72) * bitrate / sampleRate + padding
            samples = version == 3 ? 1152 : 576
        }
        guard length > 4 else { return nil }
        self.init(length: length, samples: samples, sampleRate: sampleRate, isADTS: false)
        self.bitrate = bitrate
        codec = (version == 3 ? "MPEG-1" : version == 2 ? "MPEG-2" : "MPEG-2.5") + " layer " + ["", "III", "II", "I"][layer]
    }

    /// The frame at `index` (whose header this is, and which is whole) is a Xing, Info or VBRI frame:
    /// an encoder's summary of the whole stream (its frame count, byte count, seek table), no audio.
    public func isStreamSummary(_ bytes: [UInt8], at index: Int) -> Bool {
        guard !isADTS, codec.hasSuffix("layer III") else { return false }
        let mono = bytes[index + 3] >> 6 == 3
        let sideInformation = codec.hasPrefix("MPEG-1") ? (mono ? 17 : 32) : (mono ? 9 : 17)
        func named(_ tag: String, at offset: Int) -> Bool {
            offset + 4 <= length && bytes[(index + offset) ..< (index + offset + 4)].elementsEqual(tag.utf8)
        }
        return named("Xing", at: 4 + sideInformation) || named("Info", at: 4 + sideInformation) || named("VBRI", at: 36)
    }

    public init(length: Int, samples: Int, sampleRate: Int, isADTS: Bool) {
        self.length = length
        self.samples = samples
        self.sampleRate = sampleRate
        self.isADTS = isADTS
    }
}

/// The Xing frame of a recorded VBR MP3 file: the stream's own was left out, as it counted the whole
/// stream's frames; without one a player estimates a VBR file's length from its first frames' bitrate
/// (ffprobe read 7.75 s for 8.0 s). A CBR file gets none: its length follows from its size.
public struct XingFrame {
    private var framer = MPEGAudioFramer()
    private var frames = 0
    private var bytes = 0
    private var bitrates = Set<Int>()
    private var first: [UInt8]?

    public init() {}

    /// The file's bytes, in order, in any pieces.
    public mutating func count(_ chunk: [UInt8]) {
        for unit in framer.push(chunk) {
            guard let header = MPEGFrameHeader(unit.bytes + [0, 0, 0], at: 0), !header.isADTS else { continue }
            frames += 1
            bytes += unit.bytes.count
            bitrates.insert(header.bitrate)
            if first == nil { first = Array(unit.bytes.prefix(4)) }
        }
    }

    /// The frame to put before the file's first, or nil for a CBR file (or one that is not MPEG audio layer III).
    public func frame() -> [UInt8]? {
        guard bitrates.count > 1, let first, frames > 0 else { return nil }
        var header = first
        header[1] |= 0x01 // no CRC after the header
        header[2] &= 0x0D // no padding; the bitrate index is chosen below
        let version = (header[1] >> 3) & 3
        let mono = header[3] >> 6 == 3
        let sideInformation = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        let needed = 4 + sideInformation + 16
        for index in 1 ... 14 {
            header[2] = header[2] & 0x0F | UInt8(index << 4)
            guard let parsed = MPEGFrameHeader(header + [0, 0, 0], at: 0), parsed.codec.hasSuffix("layer III") else { return nil }
            guard parsed.length >= needed else { continue }
            var frame = header + [UInt8](repeating: 0, count: parsed.length - 4)
            func put(_ value: Int, at offset: Int) {
                for byte in 0 ..< 4 { frame[offset + byte] = UInt8((value >> (8 * (3 - byte))) & 0xFF) }
            }
            let at = 4 + sideInformation
            frame.replaceSubrange(at ..< at + 4, with: Array("Xing".utf8))
            put(0x03, at: at + 4) // frames and bytes follow
            put(frames, at: at + 8)
            put(bytes + parsed.length, at: at + 12)
            return frame
        }
        return nil
    }
}
