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
public func placement(relativeName: String, complete: Bool, seconds: Double, minimumSeconds: Double, policy: PartialPolicy) -> Placement {
    if seconds < minimumSeconds {
        return .drop("too short (\(formatSeconds(seconds)) < \(formatSeconds(minimumSeconds))), not kept")
    }
    if complete { return .keep(relativeName) }
    switch policy {
    case .incomplete: return .keep("incomplete/" + relativeName)
    case .keep: return .keep(relativeName)
    case .drop: return .drop("incomplete (begun or ended mid-track) and --partial drop asks not to keep those, not kept")
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
