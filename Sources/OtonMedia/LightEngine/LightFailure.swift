import CCurl
import OtonEvents

#if canImport(Glibc)
    import Glibc
#endif

/// What a failed light-engine transfer means for the listener: the same kinds the GStreamer
/// engine's errors become (``PlaybackErrorClassifier``), from curl's code and the HTTP status.
package enum LightFailure {
    /// `osErrno`: the system's error of the failed connect or read (CURLINFO_OS_ERRNO), 0 when none.
    package static func kind(_ code: CURLcode, httpStatus: Int?, maxRedirects: Int, osErrno: Int32 = 0) -> PlaybackErrorKind {
        if code == CURLE_HTTP_RETURNED_ERROR, let status = httpStatus, let kind = PlaybackErrorClassifier.classify(httpStatus: status) {
            return kind
        }
        switch code {
        case CURLE_TOO_MANY_REDIRECTS:
            return .streamUnavailable(reason: .tooManyRedirects(limit: maxRedirects))
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .streamUnavailable(reason: .redirectToUnsupportedScheme("a redirect to a scheme other than http(s)"))
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_ISSUER_ERROR:
            return .streamUnavailable(reason: .secureConnectionFailed)
        case CURLE_WEIRD_SERVER_REPLY:
            return .streamUnavailable(reason: .notAudio)
        case CURLE_COULDNT_CONNECT where osErrno == ECONNREFUSED:
            // The host answered that nothing listens there: a server down or restarting, not the network.
            return .streamUnavailable(reason: .refused)
        default:
            return .networkUnavailable
        }
    }
}
