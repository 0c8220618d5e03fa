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
        settings.rememberedLUFS = options.loudnessMemory?.loudness(of: current.url)
        return settings
    }

    /// Keeps what `engine` measured of the current station, when it measured long enough.
    func rememberLoudness(of engine: any StreamEngine) {
        guard let memory = options.loudnessMemory, let reading = engine.levelling, reading.enabled,
              let loudness = reading.loudnessLUFS, reading.measuredSeconds >= LoudnessMemory.minimumSeconds else { return }
        memory.remember(loudness, of: current.url)
    }
}
