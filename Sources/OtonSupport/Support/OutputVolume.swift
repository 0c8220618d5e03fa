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

    /// `value` within 0 … maximum (NaN becomes 0).
    public static func clamped(_ value: Double) -> Double {
        guard value.isFinite else { return value > 0 ? maximum : 0 }
        return min(max(value, 0), maximum)
    }
}
