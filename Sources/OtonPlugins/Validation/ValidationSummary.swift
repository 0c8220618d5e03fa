/// The last line of `oton plugins validate`: what failed, or that the rest passed and which checks
/// did not run. "all checks passed" only when every check ran and passed.
public struct ValidationSummary: Equatable, Sendable {
    public let failed: Int
    /// The names (ValidationCheck raw values) of the checks that were skipped.
    public let skipped: [String]

    public init(failed: Int, skipped: [String]) {
        self.failed = failed
        self.skipped = skipped
    }

    public var line: String {
        let skips = skipped.isEmpty ? "" : "\(skipped.count) skipped (\(skipped.joined(separator: ", ")))"
        if failed > 0 {
            return "\(failed) check\(failed == 1 ? "" : "s") failed" + (skips.isEmpty ? "" : ", " + skips)
        }
        return skips.isEmpty ? "all checks passed" : "passed, " + skips + "; see each skip line for how to run it"
    }
}
