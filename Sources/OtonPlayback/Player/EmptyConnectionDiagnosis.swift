import Dispatch
import OtonEvents
import OtonHTTP
import OtonSupport

/// Why a connection that delivered not one byte failed, when GStreamer cannot
/// say. souphttpsrc reports a server that sends nothing, a redirect loop and a
/// redirect to ftp:// alike as "Internal data stream error" or "not enough
/// data" (typefind saw an empty stream). Those are not decoding problems, and
/// a listener told "couldn't be decoded" looks in the wrong place.
///
/// Rules, for an http(s) connection whose source delivered 0 bytes and failed
/// with a vague kind (decode error, network, unknown, a 3xx that was not followed):
/// 1. The address is asked once more with a capped libcurl GET (at most 20
///    redirects, 16 KiB, 3 s); when curl names the cause — too many redirects,
///    a redirect to another scheme, an HTTP error status — that is the failure.
/// 2. Otherwise, when the connection failed after the source's own read
///    timeout, the server sent nothing for that long.
/// 3. Otherwise GStreamer's classification stands.
/// When the GET got a body, the station has recovered meanwhile: the player reconnects at once
/// (``answersAgain(_:)``) rather than throw that away and wait for its backoff.
public enum EmptyConnectionDiagnosis {
    public enum Step: Equatable, Sendable {
        /// GStreamer's classification stands.
        case keep
        /// Ask the address with ``probe(_:completion:)`` and refine with ``refine(_:with:elapsed:sourceTimeoutSeconds:)``.
        case probe
    }

    public static let redirectLimit = 20

    /// What to do about `kind` given what flowed and how long the connection lasted.
    public static func first(_ kind: PlaybackErrorKind, isHTTP: Bool, sourceBytes: UInt64) -> Step {
        guard isHTTP, sourceBytes == 0 else { return .keep }
        switch kind {
        case .decodeError, .networkUnavailable, .streamUnavailable(reason: .unknown), .streamUnavailable(reason: .notAudio),
            .streamUnavailable(reason: .serverEnded):
            return .probe
        case let .streamUnavailable(reason: .httpStatus(status)) where (300..<400).contains(status):
            return .probe  // a redirect libsoup would not follow
        case .streamUnavailable, .bufferingTimeout, .audioDeviceUnavailable, .stalled:
            return .keep
        }
    }

    /// The cause curl found; else a silent server when the connection outlived the source's read
    /// timeout; else `kind`.
    public static func refine(
        _ kind: PlaybackErrorKind, with failure: CappedHTTPClient.Failure?,
        elapsed: Duration, sourceTimeoutSeconds: Int
    ) -> PlaybackErrorKind {
        switch failure {
        case .tooManyRedirects?: return .streamUnavailable(reason: .tooManyRedirects(limit: redirectLimit))
        case let .unsupportedScheme(detail)?: return .streamUnavailable(reason: .redirectToUnsupportedScheme(detail))
        case let .http(status)?:
            if let named = PlaybackErrorClassifier.classify(httpStatus: status) { return named }
        case .tooLarge?, .timedOut?, .cancelled?, .hostNotFound?, .transport?, nil:
            break
        }
        if elapsed >= .seconds(sourceTimeoutSeconds - 1) {
            return .streamUnavailable(reason: .sentNothing(seconds: sourceTimeoutSeconds))
        }
        return kind
    }

    /// The diagnostic GET got a body (a live stream fills the 16 KiB cap): the station has recovered
    /// since the connection that yielded nothing, and the player reconnects at once instead of after its backoff.
    public static func answersAgain(_ failure: CappedHTTPClient.Failure?) -> Bool {
        switch failure {
        case nil, .tooLarge?: true
        default: false
        }
    }

    /// Asks `url` once (on a private queue) and calls back with curl's failure, nil when it got a body.
    public static func probe(
        _ url: String, userAgent: String = OtonVersion.userAgent,
        completion: @escaping @Sendable (CappedHTTPClient.Failure?) -> Void
    ) {
        DispatchQueue.global(qos: .utility).async {
            let client = CappedHTTPClient(
                limits: .init(totalMilliseconds: 3000, connectMilliseconds: 3000, maxRedirects: redirectLimit),
                userAgent: userAgent)
            do throws(CappedHTTPClient.Failure) {
                _ = try client.get(url, maxBytes: 16 * 1024)
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }
}
