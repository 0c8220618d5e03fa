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
        return .drop("too short (\(formatSeconds(seconds)) < \(formatLimit(minimumSeconds))), not kept")
    }
    if complete { return .keep(relativeName) }
    switch policy {
    case .incomplete: return .keep("incomplete/" + relativeName)
    case .keep: return .keep(relativeName)
    case .drop: return .drop("incomplete, not kept (--partial drop)")
    }
}

/// A limit in seconds as the user typed it (--min-seconds): "5 s", "2.5 s", "60 s".
public func formatLimit(_ seconds: Double) -> String {
    String(format: "%g s", seconds)
}

/// "3:07", "0.4 s".
public func formatSeconds(_ seconds: Double) -> String {
    if seconds < 10 { return String(format: "%.1f s", seconds) }
    let whole = Int(seconds.rounded())
    return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
        : String(format: "%d:%02d", whole / 60, whole % 60)
}
