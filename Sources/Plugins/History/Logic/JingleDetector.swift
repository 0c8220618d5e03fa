import Foundation

/// Tells jingles and adverts from songs: a title equal to the station name,
/// empty, "-", or matching a configured pattern. History keeps them flagged;
/// they are never scrobbled.
public struct JingleDetector: @unchecked Sendable {
    private let patterns: [NSRegularExpression]

    public init(patterns: [String] = []) {
        self.patterns = patterns.compactMap { try? NSRegularExpression(pattern: $0, options: [.caseInsensitive]) }
    }

    public func isJingle(title: String?, rawTitle: String?, station: String?) -> Bool {
        let shown = (title ?? rawTitle ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let raw = (rawTitle ?? title ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if shown.isEmpty || raw.isEmpty { return true }
        if shown.allSatisfy({ $0 == "-" || $0 == " " }) || raw.allSatisfy({ $0 == "-" || $0 == " " }) { return true }
        if let station = station?.trimmingCharacters(in: .whitespacesAndNewlines), !station.isEmpty,
           shown.caseInsensitiveCompare(station) == .orderedSame || raw.caseInsensitiveCompare(station) == .orderedSame {
            return true
        }
        for pattern in patterns {
            for text in [shown, raw] where pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                return true
            }
        }
        return false
    }
}
