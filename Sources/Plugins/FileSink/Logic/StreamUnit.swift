/// One self-contained piece of an encoded stream: an MPEG audio frame, an
/// ADTS frame, an Ogg page, or (for containers we cannot parse) a raw chunk.
/// A file may only be cut between units, so every file starts on a unit.
public struct StreamUnit: Equatable, Sendable {
    public var bytes: [UInt8]
    /// How much audio the unit holds, in nanoseconds (0 when unknown or a header).
    public var durationNanoseconds: Int64
    /// An Ogg page that begins a logical stream (BOS): in a chained Ogg stream, a new track.
    public var beginsLogicalStream: Bool
    /// An Ogg codec header page (identification, comments, setup): repeated at the
    /// start of a file cut in the middle of a logical stream, so the file plays on its own.
    public var isCodecHeader: Bool
    /// Loudness of decoded audio (mean square, 0 … 1); nil for encoded units.
    public var level: Double?
    /// How many bytes of the received stream the unit stands for, when not its own count (an Ogg
    /// comment header over the bound, replaced by an empty one: `OggHeaderBound`).
    public var streamLength: Int?
    /// Bytes of the received stream the unit stands for.
    public var receivedLength: Int { streamLength ?? bytes.count }

    public init(
        bytes: [UInt8], durationNanoseconds: Int64 = 0, beginsLogicalStream: Bool = false, isCodecHeader: Bool = false,
        level: Double? = nil
    ) {
        self.bytes = bytes
        self.level = level
        self.durationNanoseconds = durationNanoseconds
        self.beginsLogicalStream = beginsLogicalStream
        self.isCodecHeader = isCodecHeader
    }
}

/// Splits a byte stream into units. Fed in arbitrary pieces; keeps what does not yet form a whole unit.
public protocol StreamFramer {
    /// Adds bytes and returns the units now complete, in order.
    mutating func push(_ bytes: [UInt8]) -> [StreamUnit]
    /// What is left over at the end of a connection (an incomplete unit), as raw bytes.
    mutating func flush() -> [UInt8]
    /// Another container began where this one lost its sync (``FormatSwitch``): the framer took nothing
    /// from there on, and `flush()` gives the bytes from its start.
    var switchedTo: StreamContainer? { get }
}

extension StreamFramer {
    public var switchedTo: StreamContainer? { nil }
}

/// The encoded formats a recording knows how to cut, from the stream tap's caps.
public enum StreamContainer: String, Equatable, Sendable {
    case mpegAudio
    case adts
    case ogg
    /// Native FLAC (`audio/flac`, not in Ogg).
    case flac
    /// Raw S16LE PCM from the PCM tap, written as WAV.
    case pcm
    case unknown

    /// "audio/mpeg, mpegversion=(int)1, …" → .mpegAudio; "application/ogg" → .ogg.
    public init(caps: String) {
        let lower = caps.lowercased()
        if lower.hasPrefix("application/ogg") || lower.hasPrefix("audio/ogg") || lower.hasPrefix("application/x-ogg") {
            self = .ogg
        } else if lower.hasPrefix("audio/mpeg") {
            if lower.contains("mpegversion=(int)4") || lower.contains("mpegversion=(int)2") {
                self = .adts
            } else {
                self = .mpegAudio
            }
        } else if lower.hasPrefix("audio/x-flac") || lower.hasPrefix("audio/flac") {
            self = .flac
        } else if lower.hasPrefix("audio/aac") || lower.hasPrefix("audio/x-aac") {
            self = .adts
        } else if PCMFormat(caps: caps) != nil {
            self = .pcm
        } else {
            self = .unknown
        }
    }

    /// The format as people name it, in messages: "MP3", "AAC", "Ogg", "FLAC".
    public var name: String {
        switch self {
        case .mpegAudio: "MP3"
        case .adts: "AAC"
        case .ogg: "Ogg"
        case .flac: "FLAC"
        case .pcm: "PCM"
        case .unknown: "an unknown format"
        }
    }

    /// File name extension for a recording in this container.
    public func fileExtension(caps: String) -> String {
        switch self {
        case .mpegAudio: return "mp3"
        case .adts: return "aac"
        case .ogg: return caps.lowercased().contains("opus") ? "opus" : "ogg"
        case .flac: return "flac"
        case .pcm: return "wav"
        case .unknown: return "bin"
        }
    }

    public func makeFramer(caps: String = "") -> any StreamFramer {
        switch self {
        case .pcm: return PCMFramer(format: PCMFormat(caps: caps) ?? PCMFormat(rate: 44100, channels: 2))
        case .mpegAudio, .adts: return MPEGAudioFramer()
        case .ogg: return OggPageFramer()
        case .flac: return FLACFramer()
        case .unknown: return RawFramer()
        }
    }

    /// Units carry an exact duration, so a cut can be moved and padded in time (not Ogg: pages of
    /// one logical stream cannot be moved into another file without rewriting them).
    /// The stream begins with codec headers (Ogg's header pages, native FLAC's "fLaC" and metadata blocks)
    /// that every file needs at its start, so they are held and repeated at each cut.
    public var hasCodecHeaders: Bool { self == .ogg || self == .flac }

    public var supportsAlignedCuts: Bool { self == .mpegAudio || self == .adts || self == .pcm }
}

/// For streams we cannot parse: every pushed piece is one unit.
public struct RawFramer: StreamFramer {
    public init() {}
    public mutating func push(_ bytes: [UInt8]) -> [StreamUnit] { bytes.isEmpty ? [] : [StreamUnit(bytes: bytes)] }
    public mutating func flush() -> [UInt8] { [] }
}
