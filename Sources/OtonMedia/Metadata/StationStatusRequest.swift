import Foundation

/// Builds status-API request URLs.
public enum StationStatusRequest {
    /// Name of the cache-busting query parameter.
    public static let cacheBustingParameter = "_"

    /// `base` with `_=<milliseconds since 1970>` added so caches and CDNs
    /// return fresh now-playing data.
    ///
    /// - No query → `?_=…`; an existing query → `&_=…` (existing items are
    ///   kept byte-for-byte, never re-encoded); an empty query (`…?`) →
    ///   `?_=…`. A previous `_` parameter is replaced, so repeated calls do
    ///   not grow the URL. A fragment is preserved.
    /// - If `base` cannot be taken apart, it is returned unchanged.
    public static func url(base: URL, now: Date) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return base }
        let millis = (now.timeIntervalSince1970 * 1000).rounded(.down)
        let stamp = millis.isFinite ? Int64(min(max(millis, 0), 9e15)) : 0
        let item = "\(cacheBustingParameter)=\(stamp)"
        let kept = (components.percentEncodedQuery ?? "")
            .split(separator: "&", omittingEmptySubsequences: true)
            .filter { $0 != Substring(cacheBustingParameter) && !$0.hasPrefix(cacheBustingParameter + "=") }
        components.percentEncodedQuery = (kept.map(String.init) + [item]).joined(separator: "&")
        return components.url ?? base
    }
}
