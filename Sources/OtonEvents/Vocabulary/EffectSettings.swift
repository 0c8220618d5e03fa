/// One effect of the chain that sits between the PCM tap and the leveller (docs/effects.md): the
/// built-in equalizer or an LV2 plugin, its parameters and its bypass. plugins.json's `effects`
/// lists them in order; `oton ctl effect` changes them while playing.
public struct EffectSettings: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// GStreamer's 10-band equalizer; its parameters are the bands (``Equalizer/bandNames``).
        case equalizer
        /// An installed LV2 plugin by URI; its parameters are the plugin's control ports by symbol.
        case lv2(uri: String)
    }

    /// How `ctl effect NAME …` and the log name it: unique in the chain.
    public var name: String
    public var kind: Kind
    /// Parameter values set (by symbol); the rest keep their defaults. The equalizer always has all ten.
    public var parameters: [String: Double]
    /// Passed through untouched (live, without a gap).
    public var bypass: Bool
    /// The equalizer's preset its bands started from (nil when set band by band, or not an equalizer).
    public var preset: String?

    public init(name: String, kind: Kind, parameters: [String: Double] = [:], bypass: Bool = false, preset: String? = nil) {
        self.name = name
        self.kind = kind
        self.parameters = parameters
        self.bypass = bypass
        self.preset = preset
    }

    /// The equalizer as a preset sets it (``Equalizer/presets``); nil for an unknown preset.
    public static func equalizer(name: String = "equalizer", preset: String, bypass: Bool = false) -> EffectSettings? {
        guard let gains = Equalizer.presets[preset] else { return nil }
        return EffectSettings(name: name, kind: .equalizer, parameters: Equalizer.parameters(gains), bypass: bypass, preset: preset)
    }
}

/// The built-in equalizer: GStreamer's `equalizer-10bands` (octave bands from 29 Hz to 15 kHz),
/// its bands by name and its presets.
public enum Equalizer {
    /// The bands' names, as plugins.json and `ctl effect` write them, in the element's order
    /// (band0 … band9: 29, 59, 119, 237, 474, 947, 1889, 3770, 7523, 15011 Hz).
    public static let bandNames = ["30hz", "60hz", "120hz", "240hz", "480hz", "1khz", "2khz", "4khz", "8khz", "15khz"]
    /// A band's gain in dB (the element's range).
    public static let gainRange: ClosedRange<Double> = -24...12

    /// Gains in dB for the ten bands.
    public static let presets: [String: [Double]] = [
        "flat": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        "bass-cut": [-12, -12, -12, -6, 0, 0, 0, 0, 0, 0],
        "bass-boost": [6, 6, 4, 2, 0, 0, 0, 0, 0, 0],
        "treble-cut": [0, 0, 0, 0, 0, 0, -3, -6, -9, -12],
        "treble-boost": [0, 0, 0, 0, 0, 0, 2, 4, 6, 6],
        "voice": [-12, -9, -3, 0, 2, 3, 3, 2, 0, -3],
        "loudness": [6, 4, 0, 0, -2, 0, 0, 0, 4, 6],
    ]

    /// The presets' names, sorted (for messages and `oton effects list`).
    public static var presetNames: [String] { presets.keys.sorted() }

    /// The bands as parameters: name → gain.
    public static func parameters(_ gains: [Double]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: zip(bandNames, gains))
    }
}
