import PluginAPI

/// The PCM one plugin instance receives on OTON_TAP_PCM (ABI 1.3 `select_pcm_format`): sample
/// format, rate and channels, 0 meaning "as the stream has it". The pipeline builds one branch
/// per distinct choice and the bus gives each instance the packets of its own.
public struct PCMFormatChoice: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var sampleFormat: UInt32
    public var rate: UInt32
    public var channels: UInt32

    /// What every instance got before 1.3, and still gets unless it chooses: S16LE as the stream is.
    public static let standard = PCMFormatChoice(sampleFormat: OTON_SAMPLE_S16LE, rate: 0, channels: 0)

    public static let rates: ClosedRange<UInt32> = 8000...192_000
    public static let channelCounts: ClosedRange<UInt32> = 1...8

    public init(sampleFormat: UInt32, rate: UInt32, channels: UInt32) {
        self.sampleFormat = sampleFormat
        self.rate = rate
        self.channels = channels
    }

    /// A plugin's request, checked; nil when a value is out of range.
    public static func validated(sampleFormat: UInt32, rate: UInt32, channels: UInt32) -> PCMFormatChoice? {
        let format = sampleFormat == 0 ? OTON_SAMPLE_S16LE : sampleFormat
        guard format == OTON_SAMPLE_S16LE || format == OTON_SAMPLE_F32LE,
            rate == 0 || rates.contains(rate),
            channels == 0 || channelCounts.contains(channels)
        else { return nil }
        return PCMFormatChoice(sampleFormat: format, rate: rate, channels: channels)
    }

    /// The caps of the branch's capsfilter: what is fixed is named, the rest follows the stream.
    public var caps: String {
        var caps = "audio/x-raw,format=\(sampleFormat == OTON_SAMPLE_F32LE ? "F32LE" : "S16LE"),layout=interleaved"
        if rate != 0 { caps += ",rate=\(rate)" }
        if channels != 0 { caps += ",channels=\(channels)" }
        return caps
    }

    public var description: String {
        "\(sampleFormat == OTON_SAMPLE_F32LE ? "F32LE" : "S16LE") \(rate == 0 ? "stream rate" : "\(rate) Hz") \(channels == 0 ? "stream channels" : "\(channels) ch")"
    }

    public static func < (a: PCMFormatChoice, b: PCMFormatChoice) -> Bool {
        (a.sampleFormat, a.rate, a.channels) < (b.sampleFormat, b.rate, b.channels)
    }
}
