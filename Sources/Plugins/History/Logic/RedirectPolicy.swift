import Foundation

/// Which redirects an authenticated request may follow. A request to a
/// scrobbling service carries a credential (ListenBrainz's token in a header,
/// Last.fm's api_key and session key in the form), so it is re-sent only to
/// the same origin (scheme, host and port), at most `maximumRedirects` times.
/// A redirect anywhere else is an error that names the target's origin only:
/// its path or query may carry someone else's secrets, and ours were not sent.
public enum RedirectPolicy {
    public static let maximumRedirects = 5
    public static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    public enum Decision: Equatable, Sendable {
        /// Send the same request (method, headers, body) to this URL.
        case follow(URL)
        /// Stop: the reason is safe to log.
        case refuse(String)
    }

    /// "scheme://host:port" with the scheme's default port filled in; nil for a URL that is not http(s).
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// What to do with an answer of `status` to a request sent to `url`, after `redirectsSoFar`
    /// redirects were followed. Nil when the answer is not a redirect (it is the service's answer).
    public static func decide(status: Int, location: String?, from url: URL, redirectsSoFar: Int) -> Decision? {
        guard redirectStatuses.contains(status) else { return nil }
        guard let location, !location.isEmpty,
            let target = URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: url)?.absoluteURL
        else {
            return .refuse("the service answered HTTP \(status) (a redirect) without a usable Location")
        }
        guard let targetOrigin = origin(of: target) else {
            return .refuse("the service redirected to an address that is not http(s); the request was not sent there")
        }
        guard let sourceOrigin = origin(of: url), sourceOrigin == targetOrigin else {
            return .refuse(
                "the service redirected to another host (\(targetOrigin)); the request and its token were not sent there. "
                    + "Check the service URL in plugins.json")
        }
        guard redirectsSoFar < maximumRedirects else {
            return .refuse("the service redirected more than \(maximumRedirects) times (a loop?); giving up on this request")
        }
        return .follow(target)
    }
}
