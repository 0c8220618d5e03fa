/// Gives raw AAC frames (what qtdemux takes out of fMP4/CMAF segments: `stream-format=raw`
/// with an AudioSpecificConfig in `codec_data`) a 7-byte ADTS header each, so the stream tap
/// carries self-contained ADTS frames as it does for packed-audio and MPEG-TS HLS, and a
/// recording of fMP4 HLS or DASH is cut into ADTS `.aac` files (issue 27.6).
///
/// Pure logic; immutable.
package struct RawAACFraming: Equatable, Sendable {
    /// ADTS profile: the audio object type minus one (AAC LC: 1).
    package let profile: UInt8
    package let frequencyIndex: UInt8
    package let channelConfiguration: UInt8

    /// The caps the wrapped frames have.
    package var caps: String {
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        return
            "audio/mpeg, mpegversion=(int)4, stream-format=(string)adts, framed=(boolean)true, rate=(int)\(rates[Int(frequencyIndex)]), channels=(int)\(channelConfiguration == 7 ? 8 : Int(channelConfiguration))"
    }

    /// From caps text such as "audio/mpeg, mpegversion=(int)4, stream-format=(string)raw, …,
    /// codec_data=(buffer)1210": nil unless they are raw AAC whose configuration ADTS can carry.
    package init?(caps: String) {
        let lower = caps.lowercased()
        guard lower.hasPrefix("audio/mpeg"), lower.contains("mpegversion=(int)4") || lower.contains("mpegversion=(int)2"),
            lower.contains("stream-format=(string)raw"),
            let range = lower.range(of: "codec_data=(buffer)")
        else { return nil }
        let hex = lower[range.upperBound...].prefix { $0.isHexDigit }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), bytes.count < 8 {
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(audioSpecificConfig: bytes)
    }

    /// From an AudioSpecificConfig (ISO 14496-3 1.6.2.1): object type, frequency index, channels.
    package init?(audioSpecificConfig config: [UInt8]) {
        guard config.count >= 2 else { return nil }
        var objectType = config[0] >> 3
        let frequencyIndex = (config[0] & 0x07) << 1 | config[1] >> 7
        let channels = (config[1] >> 3) & 0x0F
        // HE-AAC (SBR 5, PS 29) signalled explicitly: ADTS carries the AAC LC core at the core rate.
        if objectType == 5 || objectType == 29 { objectType = 2 }
        guard (1...4).contains(objectType), frequencyIndex < 13, (1...7).contains(channels) else { return nil }
        profile = objectType - 1
        self.frequencyIndex = frequencyIndex
        channelConfiguration = channels
    }

    /// The ADTS header (no CRC) of a frame whose raw payload is `payloadBytes` long.
    package func header(payloadBytes: Int) -> [UInt8] {
        let length = payloadBytes + 7
        return [
            0xFF, 0xF1,  // sync, MPEG-4, layer 0, no CRC
            profile << 6 | frequencyIndex << 2 | (channelConfiguration >> 2) & 0x01,
            (channelConfiguration & 0x03) << 6 | UInt8((length >> 11) & 0x03),
            UInt8((length >> 3) & 0xFF),
            UInt8((length & 0x07) << 5) | 0x1F,  // buffer fullness 0x7FF: variable rate
            0xFC,  // fullness, one raw data block
        ]
    }

    /// ADTS frames are at most 8191 bytes long.
    package static let maxPayloadBytes = 8191 - 7
}
