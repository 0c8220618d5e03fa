/// The codecs oton frames in Ogg, known by the identification header that begins each logical
/// stream (the body of its BOS page): Vorbis, Opus and FLAC.
public enum OggCodec: String, Sendable {
    case vorbis, opus, flac

    /// The codec an identification header names, nil when unknown. `header` may be the BOS page's
    /// whole body or the first packet: each codec's header is shorter than the page it is on.
    public init?(identification header: ArraySlice<UInt8>) {
        if header.count >= 16, header.first == 1, header.dropFirst().starts(with: "vorbis".utf8) {
            self = .vorbis
        } else if header.starts(with: "OpusHead".utf8) {
            self = .opus
        } else if header.count >= 13, header.first == 0x7F, header.dropFirst().starts(with: "FLAC".utf8) {
            self = .flac
        } else {
            return nil
        }
    }

    /// The stream tap's caps for an Ogg stream of this codec (as both engines name it).
    public var caps: String { "audio/ogg, codec=(string)\(rawValue)" }

    /// The codec's name as a listener reads it.
    public var name: String {
        switch self {
        case .vorbis: return "Vorbis"
        case .opus: return "Opus"
        case .flac: return "FLAC"
        }
    }

    /// The granule rate (units per second) an identification header gives, 0 when the codec is unknown.
    public static func granuleRate(_ header: ArraySlice<UInt8>) -> Int64 {
        let body = Array(header)
        func le32(_ at: Int) -> Int64 {
            guard at + 4 <= body.count else { return 0 }
            return Int64(body[at]) | Int64(body[at + 1]) << 8 | Int64(body[at + 2]) << 16 | Int64(body[at + 3]) << 24
        }
        switch OggCodec(identification: header) {
        case .vorbis: return le32(12)
        case .opus: return 48000  // granules count 48 kHz samples whatever the input rate
        case .flac: return body.count >= 30 ? (Int64(body[27]) << 12 | Int64(body[28]) << 4 | Int64(body[29]) >> 4) : 0
        case nil: return 0
        }
    }
}
