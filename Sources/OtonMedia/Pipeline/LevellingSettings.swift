/// How a connection levels its loudness (docs/levelling.md): the target, whether it is on, and the
/// station's loudness measured before (so a switch starts at the right gain at once).
public struct LevellingSettings: Equatable, Sendable {
    /// The loudness aimed at, in LUFS.
    public var targetLUFS: Double
    public var enabled: Bool
    /// The station's loudness from an earlier listen (LUFS), nil when never measured.
    public var rememberedLUFS: Double?

    /// −16 LUFS (docs/levelling.md says why): Apple Music's level and AES TD1008's recommendation for
    /// streams, 2 dB under Spotify's −14, which leaves a dynamic station's peaks too little room under
    /// the limiter's −1.5 dBFS; −18 made oton 12 dB quieter than mpv on a loud station.
    public static let defaultTargetLUFS = -16.0
    /// The targets plugins.json accepts.
    public static let targetRange: ClosedRange<Double> = -40 ... -6

    public init(targetLUFS: Double = Self.defaultTargetLUFS, enabled: Bool = true, rememberedLUFS: Double? = nil) {
        self.targetLUFS = targetLUFS
        self.enabled = enabled
        self.rememberedLUFS = rememberedLUFS
    }
}

/// What the leveller of a connection does right now (read from any thread).
public struct LevellingReading: Equatable, Sendable {
    public var enabled: Bool
    public var targetLUFS: Double
    /// The levelling gain applied now, in dB (0 when off).
    public var gainDB: Double
    /// The station's loudness as measured so far (LUFS), nil while unknown.
    public var loudnessLUFS: Double?
    /// Seconds of sound the measurement rests on (a remembered loudness counts as a full window).
    public var measuredSeconds: Double
    /// The limiter's gain reduction now, in dB (≤ 0).
    public var limiterDB: Double
    /// Samples the safety guard at the leveller's entry changed (not finite, or far beyond full scale).
    public var guardedSamples: UInt64 = 0

    public init(
        enabled: Bool, targetLUFS: Double, gainDB: Double, loudnessLUFS: Double?, measuredSeconds: Double, limiterDB: Double, guardedSamples: UInt64 = 0
    ) {
        self.enabled = enabled
        self.targetLUFS = targetLUFS
        self.gainDB = gainDB
        self.loudnessLUFS = loudnessLUFS
        self.measuredSeconds = measuredSeconds
        self.limiterDB = limiterDB
        self.guardedSamples = guardedSamples
    }
}
