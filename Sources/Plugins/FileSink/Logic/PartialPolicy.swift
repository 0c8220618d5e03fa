import Foundation
import OtonJSON

/// What happens to a file when its segment ends.
public enum PartialPolicy: String, Sendable, CaseIterable {
    /// Incomplete tracks go to an `incomplete/` folder beside the complete ones (``incompletePath(_:)``).
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

/// A piece cut short (SIGTERM, a broken connection) is kept from this length: below it, a few frames
/// that begin just before the stop are no recording anyone can play (a 20-station run kept one that
/// decoded as 0 s) and are dropped with their reason like any short piece.
public let minimumCutShortSeconds = 1.0

/// Decides where a finished segment's file goes.
/// `cutShort`: the track was still in progress when the recording stopped or the connection broke; such a
/// piece is kept as incomplete whatever its length (as streamripper does), unless incomplete ones are dropped.
public func placement(
    relativeName: String, complete: Bool, seconds: Double, minimumSeconds: Double, policy: PartialPolicy,
    cutShort: Bool = false
) -> Placement {
    if seconds < minimumSeconds && !(cutShort && !complete && seconds >= minimumCutShortSeconds && policy != .drop) {
        return .drop("too short (\(formatSecondsBelow(seconds)) < \(formatSecondsPrecisely(minimumSeconds))), not kept")
    }
    if complete { return .keep(relativeName) }
    switch policy {
    case .incomplete: return .keep(incompletePath(relativeName))
    case .keep: return .keep(relativeName)
    case .drop: return .drop("incomplete (begun or ended mid-track) and --partial drop asks not to keep those, not kept")
    }
}

/// Wishlist mode: only tracks the host announced as wishes to keep stay; of those, one heard from its
/// middle (or cut at its end) goes to its folder's `incomplete/` unless the policy is `drop` (`--partial keep` asks for it).
public func wishlistPlacement(
    relativeName: String, complete: Bool, seconds: Double, minimumSeconds: Double, policy: PartialPolicy,
    wish: WishDecision
) -> Placement {
    switch wish {
    case .notWished: return .drop("not on the wishlist, not kept")
    case let .notKept(why): return .drop(why)
    case .keep: break
    }
    if seconds < minimumSeconds || complete || policy == .drop {
        return placement(relativeName: relativeName, complete: complete, seconds: seconds, minimumSeconds: minimumSeconds, policy: policy)
    }
    return .keep(incompletePath(relativeName))
}

/// Where an incomplete track goes: an `incomplete/` folder in its own folder, "Oton FM/incomplete/A - B.mp3".
/// One layout for a recorder of one station and of several (each station's folder has its own
/// `incomplete/`); it used to be `incomplete/Oton FM/…` for one station and `Oton FM/incomplete/…` for several.
public func incompletePath(_ relativeName: String) -> String {
    guard let slash = relativeName.lastIndex(of: "/") else { return "incomplete/" + relativeName }
    return relativeName[...slash] + "incomplete/" + relativeName[relativeName.index(after: slash)...]
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

/// A file's or a track's length in every line that lists one: "0:08", "3:07", "1:02:03"
/// (one form: the recorder printed "0:12" and "8.0 s" side by side).
public func formatSeconds(_ seconds: Double) -> String {
    TimeText.clock(seconds)
}

/// A length beside a limit, to the tenth of a second: "5.0 s", "12.5 s".
public func formatSecondsPrecisely(_ seconds: Double) -> String {
    String(format: "%.1f s", seconds)
}

/// As ``formatSecondsPrecisely(_:)``, never rounded up: a length below a limit never reads as the
/// limit ("4.9 s < 5.0 s", not "5.0 s < 5.0 s").
public func formatSecondsBelow(_ seconds: Double) -> String {
    formatSecondsPrecisely((seconds * 10 + 1e-9).rounded(.down) / 10)
}
