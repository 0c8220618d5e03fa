import Foundation

/// The listener's own skip patterns (config `jingle_patterns`): titles that match are kept in history
/// flagged as jingles and never scrobbled. Whether something is a track at all (an empty title, the
/// station's name, "Unknown - Unknown") is the host's decision, made before the track event.
///
/// `@unchecked Sendable`: immutable after init (Swift's `Regex` is not Sendable, but nothing mutates it).
public struct JingleDetector: @unchecked Sendable {
    private let patterns: [Regex<AnyRegexOutput>]

    /// Case-insensitive regular expressions; one that does not compile is left out.
    public init(patterns: [String] = []) {
        self.patterns = patterns.compactMap { try? Regex($0).ignoresCase() }
    }

    public func isJingle(title: String?, rawTitle: String?, station: String?) -> Bool {
        let texts = [title, rawTitle].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        return patterns.contains { pattern in texts.contains { (try? pattern.firstMatch(in: $0)) != nil } }
    }
}
