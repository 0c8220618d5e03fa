import OtonStreamFraming

/// A stream that changes codec within one connection: a server that switches from MP3 to Ogg in the
/// same body kept sending "audio/mpeg", and the Ogg pages went into the MP3 file (issue 39, N15).
/// A framer that has lost its sync asks this whether another container plainly begins where it is
/// searching; the reader then starts a new file of that container (``StreamUnitReader``).
public enum FormatSwitch: Equatable, Sendable {
    /// Nothing else begins here: skip the byte as before.
    case no
    /// Something may begin here but its proof (a whole Ogg page, three MPEG frames) has not arrived.
    case wait
    /// This container begins here.
    case to(StreamContainer)

    /// What begins at `index`, judged by a framer of `current` that has lost its sync there. Only what
    /// cannot be an accident: an Ogg page whose CRC checks, "fLaC" followed by STREAMINFO, three MPEG
    /// audio (or ADTS) frames in a row.
    public static func at(_ bytes: [UInt8], _ index: Int, from current: StreamContainer) -> FormatSwitch {
        let left = bytes.count - index
        guard left >= 4 else { return .wait }
        if current != .ogg, bytes[index] == 0x4F, bytes[index + 1] == 0x67, bytes[index + 2] == 0x67, bytes[index + 3] == 0x53 {
            guard left >= 27 + 1 else { return .wait }
            guard bytes[index + 4] == 0 else { return .no }
            guard left >= 27 + Int(bytes[index + 26]) else { return .wait }
            guard let page = OggPage(bytes, at: index) else { return .no }
            guard left >= page.length else { return .wait }
            var whole = Array(bytes[index..<index + page.length])
            let stored = whole[22..<26].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            for at in 22..<26 { whole[at] = 0 }
            return OggPageWriter.crc(whole) == stored ? .to(.ogg) : .no
        }
        if current != .flac, bytes[index..<index + 4].elementsEqual("fLaC".utf8) {
            guard left >= 8 else { return .wait }
            return bytes[index + 4] & 0x7F == 0 && bytes[index + 7] == 34 ? .to(.flac) : .no
        }
        if current != .mpegAudio && current != .adts, bytes[index] == 0xFF, bytes[index + 1] & 0xE0 == 0xE0 {
            guard left >= 7 else { return .wait }
            guard let first = MPEGFrameHeader(bytes, at: index) else { return .no }
            var at = index + first.length
            for _ in 0..<2 {
                guard bytes.count >= at + 7 else { return .wait }
                guard let next = MPEGFrameHeader(bytes, at: at), next.isADTS == first.isADTS, next.sampleRate == first.sampleRate else { return .no }
                at += next.length
            }
            return .to(first.isADTS ? .adts : .mpegAudio)
        }
        return .no
    }

    /// Caps for a container found this way (the host's tap still says the first one's).
    public static func caps(_ container: StreamContainer) -> String {
        switch container {
        case .mpegAudio: "audio/mpeg, mpegversion=(int)1, layer=(int)3"
        case .adts: "audio/mpeg, mpegversion=(int)4, stream-format=(string)adts"
        case .ogg: "audio/ogg"
        case .flac: "audio/x-flac"
        case .pcm, .unknown: StreamUnitReader.unknownCaps
        }
    }
}
