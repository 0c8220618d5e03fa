import Foundation
import OtonEvents
import OtonSupport
import PluginAPI

/// What to build: the source, whether sound goes to a device, which taps plugins asked for.
public struct PipelineDescription: Equatable, Sendable {
    public enum Source: Equatable, Sendable {
        case http(String)
        case file(String)
        /// The alarm's built-in tone (``PipelineDescription/toneURL``): a beep twice a second, made here.
        case tone
    }

    /// The station URL of the alarm's built-in tone.
    public static let toneURL = "oton-tone:alarm"

    /// The alarm tone's sound: beeps a person wakes to.
    public enum Tone {
        public static let frequency = 880.0
        /// A beep starts every half second…
        public static let periodNanoseconds: UInt64 = 500_000_000
        /// …and lasts 250 ms (220 periods of 880 Hz).
        public static let sinePeriodsPerBeep = 220
        /// Peak, of full scale: a beep's RMS is about −6 dBFS.
        public static let amplitude = 0.7
    }

    public var source: Source
    /// No sound device: a fakesink that still runs in real time.
    public var headless: Bool
    /// The GStreamer audio sink to use instead of autoaudiosink (`--audio-sink`), e.g. pulsesink.
    public var audioSink: String?
    /// OTON_TAP_* bits; a branch is added only for the taps asked for.
    public var taps: UInt32
    /// With the PCM tap: one branch per distinct format the instances chose (``PCMFormatChoice``);
    /// empty means the standard one.
    public var pcmFormats: [PCMFormatChoice] = []
    public var volume: Double
    public var userAgent: String
    /// Decode and play the audio. Without it (recording: nobody listens) the stream is only
    /// parsed — demuxed, framed and tagged — into fake sinks, which costs a fraction of decoding.
    /// A PCM tap always decodes; without `decodes` it then decodes for the tap only (no clock, no
    /// network buffer, started at the first decoded buffer).
    public var decodes: Bool = true
    /// Audio held ahead of the decoder against network hiccups. Titles are reported
    /// when their audio plays, so this is also how late a title change shows.
    public var networkBufferMilliseconds: Int = 500
    /// Loudness levelling of what plays (docs/levelling.md); nil: none. Only a heard pipeline levels.
    public var levelling: LevellingSettings?
    /// The effect chain of what plays, in order (docs/effects.md): only a heard pipeline has one.
    public var effects: [EffectSettings] = []
    /// Plugins' in-place filters (ABI 1.6), after the effects.
    public var filters: [AudioFilter] = []
    /// How titles are read (the station's `title_encoding`; see ``TitleByteDecoder/decode(convertedText:setting:)``).
    public var titleEncoding: TitleEncodingSetting = .auto
    /// The station's timeshift ring (docs/timeshift.md): the connection receives into it and plays
    /// out of it (``TimeshiftEngine``). nil: played as it arrives.
    public var timeshift: TimeshiftRing?
    /// The http(s) source is an HLS playlist (``ResolvedStream/isHLS``): GStreamer's HLS demuxer
    /// fetches the segments, and the encoded-stream tap sits after the audio parser, not on the source.
    public var isHLS = false
    /// The http(s) source is a DASH manifest (``ResolvedStream/isDASH``): GStreamer's DASH demuxer
    /// fetches the segments; the source is typed as application/dash+xml for it (GStreamer 1.22's
    /// typefinder calls ffmpeg's MPD plain application/xml), and the tap sits after the audio parser.
    public var isDASH = false
    /// The HLS playlist as the resolver just read it (``ResolvedStream/playlistBody``): the source
    /// delivers it as its first response rather than fetching it a second time (one round trip less
    /// before the first segment is asked for). Ignored unless `isHLS`.
    public var playlistBody: Data?
    /// HLS or DASH: the source delivers a manifest, and its end (#EXT-X-ENDLIST, a static MPD) is the
    /// broadcast's end rather than a dropped connection.
    public var isAdaptive: Bool { isHLS || isDASH }

    public init(url: String, headless: Bool, taps: UInt32 = 0, volume: Double = 1.0, userAgent: String = OtonVersion.userAgent) {
        if url == Self.toneURL {
            source = .tone
        } else if url.hasPrefix("http://") || url.hasPrefix("https://") {
            source = .http(url)
        } else if url.hasPrefix("file://") {
            source = .file(String(url.dropFirst(7)).removingPercentEncodingIfPossible)
        } else {
            source = .file(url)
        }
        self.headless = headless
        self.taps = taps
        self.volume = volume
        self.userAgent = userAgent
    }

    /// The local path when the source is a file.
    public var filePath: String? {
        if case let .file(path) = source { return path }
        return nil
    }

    /// souphttpsrc's read timeout: a server silent this long ends the connection.
    public static let sourceTimeoutSeconds = 15

    public var isLive: Bool {
        if case .http = source { return true }
        return false
    }

    public var url: String {
        switch source {
        case let .http(url): url
        case let .file(path): "file://" + path
        case .tone: Self.toneURL
        }
    }
}

extension String {
    package var removingPercentEncodingIfPossible: String {
        // Foundation-free percent decoding for file:// paths.
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == 0x25, let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
