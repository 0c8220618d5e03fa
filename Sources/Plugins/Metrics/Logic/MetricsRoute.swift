import OtonJSON

/// What the listener answers: a request whose Host does not name the listener is 403 (DNS
/// rebinding: a page elsewhere must not read the figures, as the web remote's rule; issue 39, N9);
/// GET (or HEAD) /metrics is the text, /healthz and /readyz the health checks (HealthVerdict); any
/// other method there is 405; any other path is 404. The query string is ignored. Pure.
public enum MetricsRoute: Sendable, Equatable {
    case metrics
    case health
    case readiness
    case refuse(status: Int, message: String)

    public static func decide(method: String, url: String, host: String?, listen: ListenAddress) -> MetricsRoute {
        guard listen.isOwnHost(host) else {
            return .refuse(
                status: 403,
                message: "the Host header must name this listener (127.0.0.1, localhost, ::1 or the address it listens on, with port \(listen.port))")
        }
        let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        let routes: [String: MetricsRoute] = ["/metrics": .metrics, "/healthz": .health, "/readyz": .readiness]
        guard let route = routes[path] else {
            return .refuse(status: 404, message: "not found; the figures are at /metrics, the checks at /healthz and /readyz")
        }
        guard method == "GET" || method == "HEAD" else { return .refuse(status: 405, message: "only GET is allowed on \(path)") }
        return route
    }
}
