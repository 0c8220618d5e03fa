import OtonMedia

/// Loudness levelling as the Player carries it (docs/levelling.md): each connection starts from the
/// station's remembered loudness, and what a connection measured is remembered when it ends. On the
/// player's queue.
extension Player {
    /// The levelling of the next connection to the current station; nil when none is configured, and
    /// for the alarm's own tone (a sound made at the level a person wakes to, not a station's).
    func levellingSettings() -> LevellingSettings? {
        guard var settings = options.levelling, current.url != PipelineDescription.toneURL else { return nil }
        settings.enabled = levellingEnabled
        settings.rememberedLUFS =
            options.loudnessMemory?.loudness(of: current.url)
            ?? (heardLoudness?.url == current.url ? heardLoudness?.lufs : nil)
        return settings
    }

    /// Keeps what `engine` measured of the current station, when it measured long enough.
    /// A measurement too short to be kept across runs (``LoudnessMemory/minimumSeconds``) still
    /// starts the next connection to the same station in this run (a resume after a short listen),
    /// from this much sound on: else its first half second plays at the unlevelled gain, a burst.
    static let sessionLoudnessSeconds = 1.0

    func rememberLoudness(of engine: any StreamEngine) {
        guard let reading = engine.levelling, reading.enabled, let loudness = reading.loudnessLUFS else { return }
        if reading.measuredSeconds >= Self.sessionLoudnessSeconds { heardLoudness = (current.url, loudness) }
        guard let memory = options.loudnessMemory, reading.measuredSeconds >= LoudnessMemory.minimumSeconds else { return }
        memory.remember(loudness, of: current.url)
    }
}
