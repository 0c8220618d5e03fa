/// What the listener answers: GET (or HEAD) /metrics is the text; any other method there is 405;
/// any other path is 404. The query string is ignored. Pure.
public enum MetricsRoute: Sendable, Equatable {
    case metrics
    case refuse(status: Int, message: String)

    public static func decide(method: String, url: String) -> MetricsRoute {
        let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        guard path == "/metrics" else { return .refuse(status: 404, message: "not found; the figures are at /metrics") }
        guard method == "GET" || method == "HEAD" else { return .refuse(status: 405, message: "only GET is allowed on /metrics") }
        return .metrics
    }
}
