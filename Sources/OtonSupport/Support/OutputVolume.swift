import PluginAPI

/// The output volume's range, owned by the header (OTON_VOLUME_MAX): 0 silent, 1 full, above 1
/// amplified. Every request, fade, event and isolation frame clamps through here.
public enum OutputVolume {
    /// The loudest volume as a factor (1.5).
    public static let maximum: Double = OTON_VOLUME_MAX

    /// `value` within 0 … maximum; nil for NaN or infinity (a request to ignore).
    public static func clampedIfFinite(_ value: Double) -> Double? {
        value.isFinite ? clamped(value) : nil
    }

    /// The amplitude factor a volume plays at: the cube of it, the perceptual curve of PulseAudio's and
    /// GNOME's sliders (50 % is −18 dB, 85 % −4.2 dB, 150 % +10.6 dB). A volume that is the factor itself
    /// made the top of the range do nothing audible (100 % → 85 % was −1.4 dB) and the bottom a cliff.
    public static func gain(of value: Double) -> Double {
        let volume = clamped(value)
        return volume * volume * volume
    }

    /// `value` within 0 … maximum (NaN becomes 0).
    public static func clamped(_ value: Double) -> Double {
        guard value.isFinite else { return value > 0 ? maximum : 0 }
        return min(max(value, 0), maximum)
    }
}
