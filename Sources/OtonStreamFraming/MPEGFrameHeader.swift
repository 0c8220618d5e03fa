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
    /// MPEG audio's layer (1–3); 0 for ADTS.
    public var layer = 0
    /// ADTS: the MPEG version its ID bit names (2 or 4); MPEG audio: 1, as GStreamer's caps say it.
    public var mpegVersion = 1

    public var durationNanoseconds: Int64 { Int64(samples) * 1_000_000_000 / Int64(sampleRate) }

    private static let bitratesV1: [[Int]] = [
        [],  // layer index 0 is reserved
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],  // layer III
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],  // layer II
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // layer I
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
        let version = (b1 >> 3) & 3  // 0 MPEG-2.5, 1 reserved, 2 MPEG-2, 3 MPEG-1
        let layer = (b1 >> 1) & 3  // 1 III, 2 II, 3 I, 0: ADTS when the sync is 12 bits
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
            mpegVersion = b1 & 0x08 != 0 ? 2 : 4
            return
        }
        guard version != 1 else { return nil }
        let bitrateIndex = b2 >> 4
        let rateIndex = (b2 >> 2) & 3
        guard bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }  // free format is not cut
        let padding = (b2 >> 1) & 1
        let baseRates = [44100, 48000, 32000][rateIndex]
        let sampleRate = version == 3 ? baseRates : version == 2 ? baseRates / 2 : baseRates / 4
        let bitrate = (version == 3 ? Self.bitratesV1 : Self.bitratesV2)[layer][bitrateIndex] * 1000
        let length: Int
        let samples: Int
        switch layer {
        case 3:  // layer I
            length = (12 * bitrate / sampleRate + padding) * 4
            samples = 384
        case 2:  // layer II
            length = 144 * bitrate / sampleRate + padding
            samples = 1152
        default:  // layer III
            length = (version == 3 ? 144 : 72) * bitrate / sampleRate + padding
            samples = version == 3 ? 1152 : 576
        }
        guard length > 4 else { return nil }
        self.init(length: length, samples: samples, sampleRate: sampleRate, isADTS: false)
        self.bitrate = bitrate
        self.layer = 4 - layer
        codec = (version == 3 ? "MPEG-1" : version == 2 ? "MPEG-2" : "MPEG-2.5") + " layer " + ["", "III", "II", "I"][layer]
    }

    /// The frame at `index` (whose header this is, and which is whole) is a Xing, Info or VBRI frame:
    /// an encoder's summary of the whole stream (its frame count, byte count, seek table), no audio.
    public func isStreamSummary(_ bytes: [UInt8], at index: Int) -> Bool {
        guard !isADTS, codec.hasSuffix("layer III") else { return false }
        let mono = bytes[index + 3] >> 6 == 3
        let sideInformation = codec.hasPrefix("MPEG-1") ? (mono ? 17 : 32) : (mono ? 9 : 17)
        func named(_ tag: String, at offset: Int) -> Bool {
            offset + 4 <= length && bytes[(index + offset)..<(index + offset + 4)].elementsEqual(tag.utf8)
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
