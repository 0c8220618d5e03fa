import Foundation

/// What happens to a file when its segment ends.
public enum PartialPolicy: String, Sendable, CaseIterable {
    /// Incomplete tracks go to `incomplete/` under the output folder.
    case incomplete
    /// Incomplete tracks are deleted.
    case drop
    /// Incomplete tracks stay beside the complete ones.
    case keep
}

public enum Placement: Equatable, Sendable {
    /// Keep the file at this path relative to the output folder.
    case keep(String)
    /// Delete it; the reason is for the index and the log.
    case drop(String)
}

/// Decides where a finished segment's file goes.
/// `cutShort`: the track was still in progress when the recording stopped or the connection broke; such a
/// piece is kept as incomplete whatever its length (as streamripper does), unless incomplete ones are dropped.
public func placement(relativeName: String, complete: Bool, seconds: Double, minimumSeconds: Double, policy: PartialPolicy,
                      cutShort: Bool = false) -> Placement {
    if seconds < minimumSeconds && !(cutShort && !complete && seconds > 0 && policy != .drop) {
        return .drop("too short (\(formatSecondsBelow(seconds)) < \(formatSeconds(minimumSeconds))), not kept")
    }
    if complete { return .keep(relativeName) }
    switch policy {
    case .incomplete: return .keep("incomplete/" + relativeName)
    case .keep: return .keep(relativeName)
    case .drop: return .drop("incomplete (begun or ended mid-track) and --partial drop asks not to keep those, not kept")
    }
}

/// Wishlist mode: only tracks the host announced as wishes to keep stay; of those, one heard from its
/// middle (or cut at its end) goes to `incomplete/` unless the policy is `drop` (`--partial keep` asks for it).
public func wishlistPlacement(relativeName: String, complete: Bool, seconds: Double, minimumSeconds: Double, policy: PartialPolicy,
                              wish: WishDecision) -> Placement {
    switch wish {
    case .notWished: return .drop("not on the wishlist, not kept")
    case let .notKept(why): return .drop(why)
    case .keep: break
    }
    if seconds < minimumSeconds || complete || policy == .drop {
        return placement(relativeName: relativeName, complete: complete, seconds: seconds, minimumSeconds: minimumSeconds, policy: policy)
    }
    return .keep("incomplete/" + relativeName)
}

/// What the host said of a track in wishlist mode.
public enum WishDecision: Equatable, Sendable {
    /// No `org.oton.wish.heard` for its sequence.
    case notWished
    /// A wish, but not to keep (already kept, or another station is recording it); the reason in English.
    case notKept(String)
    case keep

    /// From the event's keep and why fields.
    public init(keep: String?, why: String?) {
        if keep == "true" { self = .keep; return }
        switch why {
        case "kept-before": self = .notKept("a wish already kept (oton record --again keeps it again), not kept")
        case "being-kept": self = .notKept("a wish another station is recording at the same time, not kept twice")
        default: self = .notKept("a wish, but not to keep, not kept")
        }
    }

    /// recording.finished's reason_code for a track this drops.
    public var reasonCode: String? {
        switch self {
        case .notWished: "not-wished"
        case .notKept: "wish-not-kept"
        case .keep: nil
        }
    }
}

/// "48 KB", "4.2 MB", "1.3 GB" (decimal units, as file managers show them).
public func formatBytes(_ bytes: UInt64) -> String {
    let value = Double(bytes)
    if value < 1000 { return "\(bytes) B" }
    if value < 1_000_000 { return String(format: "%.0f KB", value / 1000) }
    if value < 1_000_000_000 { return String(format: "%.1f MB", value / 1_000_000) }
    return String(format: "%.1f GB", value / 1_000_000_000)
}

/// "3:07", "0.4 s".
public func formatSeconds(_ seconds: Double) -> String {
    if seconds < 10 { return String(format: "%.1f s", seconds) }
    let whole = Int(seconds.rounded())
    return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
        : String(format: "%d:%02d", whole / 60, whole % 60)
}

/// As ``formatSeconds(_:)``, never rounded up: a length below a limit never reads as the limit
/// ("4.9 s < 5.0 s", not "5.0 s < 5.0 s").
public func formatSecondsBelow(_ seconds: Double) -> String {
    formatSeconds(seconds < 10 ? (seconds * 10 + 1e-9).rounded(.down) / 10 : (seconds + 1e-9).rounded(.down))
}
