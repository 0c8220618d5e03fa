import OtonEffects

/// A plugin filter's time budget (ABI 1.6), as the effect chain applies it (oton_effect_budget_ns):
/// half the buffer's duration, at least 2 ms. Said by `oton plugins inspect`, `oton plugins run` and
/// the validator's filter check.
public enum FilterBudget {
    public static let rule = "half of each buffer's duration, at least 2 ms"

    public static func nanoseconds(frames: Int, rate: UInt32) -> UInt64 { oton_effect_budget_ns(frames, UInt32(rate)) }

    public static func milliseconds(frames: Int, rate: UInt32) -> Double { Double(nanoseconds(frames: frames, rate: rate)) / 1e6 }
}
