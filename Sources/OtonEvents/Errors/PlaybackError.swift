import OtonSupport

/// Why a stream could not be played although the network works.
public enum StreamUnavailableReason: Hashable, Sendable {
    /// HTTP 404 / 410. Icecast also answers 404 while a mount's source is
    /// briefly disconnected, so this is worth retrying.
    case notFound
    /// HTTP 401 / 402 / 403 / 407 (region lock, subscription, proxy auth).
    case notAuthorized
    /// HTTP 5xx.
    case serverError(status: Int)
    /// Any other HTTP error status (3xx that was not followed, other 4xx).
    case httpStatus(Int)
    /// The URL delivers something that is not audio (HTML page, text file).
    case notAudio
    /// Audio in a format no installed GStreamer plugin can decode.
    case unsupportedFormat
    /// HTTPS: the TLS handshake failed, almost always because the server's certificate is not trusted.
    case secureConnectionFailed
    /// The server accepted the connection and then sent nothing (not even headers) for this long.
    case sentNothing(seconds: Int)
    /// The address redirects in a loop, or more often than `limit`.
    case tooManyRedirects(limit: Int)
    /// A redirect to a scheme oton never follows (ftp:, file:, …).
    case redirectToUnsupportedScheme(String)
    /// A live stream's server closed the connection as if the stream were over (its source left, or
    /// it restarted). Not a network fault: it was shown as "the network seems to be unavailable".
    case serverEnded
    /// Nothing accepts connections at the station's address (ECONNREFUSED): its server is down or
    /// restarting. The network works (the host answered): it was shown as "the network seems to be unavailable".
    case refused
    /// The stream failed for a reason the classifier could not pin down.
    case unknown
    /// The URL is a playlist that gave no stream (see ``PlaylistProblem``).
    case playlist(PlaylistProblem)

    /// Stable machine-readable sub-code, e.g. for logs and telemetry.
    public var code: String {
        switch self {
        case .notFound: "not-found"
        case .notAuthorized: "not-authorized"
        case .serverError: "server-error"
        case .httpStatus: "http-error"
        case .notAudio: "not-audio"
        case .unsupportedFormat: "unsupported-format"
        case .secureConnectionFailed: "secure-connection-failed"
        case .sentNothing: "sent-nothing"
        case .tooManyRedirects: "too-many-redirects"
        case .redirectToUnsupportedScheme: "unsupported-redirect"
        case .serverEnded: "server-ended"
        case .refused: "refused"
        case .unknown: "unknown"
        case let .playlist(problem): problem.code
        }
    }
}

/// The kinds of playback failure the user can be told about.
public enum PlaybackErrorKind: Error, Hashable, Sendable {
    case networkUnavailable
    case streamUnavailable(reason: StreamUnavailableReason)
    case bufferingTimeout
    case decodeError
    case audioDeviceUnavailable
    /// The player said "playing" but no audio reached the output for this many seconds.
    case stalled(seconds: Int)

    /// Stable machine-readable code; never localized, never changes.
    public var code: String {
        switch self {
        case .networkUnavailable: "network-unavailable"
        case .streamUnavailable: "stream-unavailable"
        case .bufferingTimeout: "buffering-timeout"
        case .decodeError: "decode-error"
        case .audioDeviceUnavailable: "audio-device-unavailable"
        case .stalled: "stalled"
        }
    }

    /// One line saying what went wrong, in English: events and the control socket carry this.
    public var message: String { message(in: .english) }

    /// What went wrong in the listener's language (``MessageCatalogue/current``): for the status line and errors.
    public var localizedMessage: String { message(in: .current) }

    /// One line saying what went wrong, for the listener, from `catalogue`.
    public func message(in catalogue: MessageCatalogue) -> String {
        switch self {
        case .networkUnavailable:
            catalogue.tr("Can't reach the station. The network seems to be unavailable.")
        case .streamUnavailable(let reason):
            switch reason {
            case .notFound: catalogue.tr("The station's stream isn't on air at this address (HTTP 404).")
            case .notAuthorized: catalogue.tr("The station refused access to its stream.")
            case .serverError(let status): catalogue.tr("The station's server is having problems (HTTP {status}).", ["status": "\(status)"])
            case .httpStatus(let status): catalogue.tr("The station's server answered with an error (HTTP {status}).", ["status": "\(status)"])
            case .notAudio: catalogue.tr("This address doesn't lead to an audio stream.")
            case .unsupportedFormat: catalogue.tr("This station uses an audio format that can't be played here.")
            case .secureConnectionFailed: catalogue.tr("The station's secure connection (HTTPS) could not be verified.")
            case .sentNothing(let seconds):
                catalogue.tr("The station's server accepted the connection but sent nothing for {seconds} s.", ["seconds": "\(seconds)"])
            case .tooManyRedirects(let limit): catalogue.tr("The address redirects in a loop (too many redirects, more than {limit}).", ["limit": "\(limit)"])
            case .redirectToUnsupportedScheme(let target):
                catalogue.tr("The server redirected to an address oton does not follow ({target}).", ["target": "\(target)"])
            case .serverEnded: catalogue.tr("The station's server ended the stream.")
            case .refused: catalogue.tr("The station's server refused the connection: it is down or restarting.")
            case .unknown: catalogue.tr("The station's stream isn't available right now.")
            case let .playlist(problem): problem.message(in: catalogue)
            }
        case .bufferingTimeout:
            catalogue.tr("The stream stopped delivering audio.")
        case .decodeError:
            catalogue.tr("The stream sent audio that couldn't be decoded.")
        case .audioDeviceUnavailable:
            catalogue.tr("No audio output is available.")
        case .stalled(let seconds):
            catalogue.tr("No audio arrived for {seconds} s although the stream was playing.", ["seconds": "\(seconds)"])
        }
    }

    /// What the listener can do about it, in English: events and the control socket carry this.
    public var recoverySuggestion: String { recoverySuggestion(in: .english) }

    /// What the listener can do about it, in their language (``MessageCatalogue/current``).
    public var localizedRecoverySuggestion: String { recoverySuggestion(in: .current) }

    /// What the listener can do about it, from `catalogue`.
    public func recoverySuggestion(in catalogue: MessageCatalogue) -> String {
        switch self {
        case .networkUnavailable:
            catalogue.tr("Check your internet connection. oton tries again on its own; to try at once, press space (or run `oton ctl play`).")
        case .streamUnavailable(let reason):
            switch reason {
            case .notFound:
                catalogue.tr("The station may be off air or may have moved. Try again later or update the station's stream URL.")
            case .notAuthorized:
                catalogue.tr("The stream may be limited to certain countries or subscribers. Try another stream URL for this station.")
            case .serverError:
                catalogue.tr("This is usually temporary. Try again in a few minutes.")
            case .httpStatus:
                catalogue.tr("Try again later, or check the station's stream URL.")
            case .notAudio:
                catalogue.tr("The URL may point to a web page or playlist instead of the stream. Check the station's stream URL.")
            case .unsupportedFormat:
                catalogue.tr("Install the GStreamer codec plugins (gstreamer1.0-plugins-good, -bad, -ugly and gstreamer1.0-libav), then try again.")
            case .secureConnectionFailed:
                catalogue.tr(
                    "Its certificate is not trusted here (self-signed, expired, or for another name). If the station uses its own certificate authority, set SSL_CERT_FILE to that PEM file; otherwise try its http:// address."
                )
            case .sentNothing:
                catalogue.tr(
                    "The server may be overloaded or the station's source offline. oton tries again on its own; if it keeps happening, check the stream URL.")
            case .tooManyRedirects, .redirectToUnsupportedScheme:
                catalogue.tr("The station's server is misconfigured. Check the stream URL (the station's website usually lists the current one).")
            case .serverEnded:
                catalogue.tr(
                    "Its source may have stopped or the server restarted. oton tries again on its own; to try at once, press space (or run `oton ctl play`).")
            case .refused:
                catalogue.tr("oton tries again on its own; if it keeps happening, check the stream URL's host and port.")
            case .unknown:
                catalogue.tr("Try again in a moment. If it keeps failing, the station may be off air.")
            case let .playlist(problem):
                problem.recoverySuggestion(in: catalogue)
            }
        case .bufferingTimeout:
            catalogue.tr("Your connection may be slow or the station overloaded. Try again, or choose a lower-quality stream.")
        case .decodeError:
            catalogue.tr("This is usually a glitch at the station. Try again; if it keeps happening, the stream may be broken.")
        case .audioDeviceUnavailable:
            catalogue.tr(
                "Check that speakers or headphones are connected and that PipeWire or PulseAudio is running, then start oton again (or use --headless on a server)."
            )
        case .stalled:
            catalogue.tr("oton reconnects on its own. If it keeps happening, the station or your connection is overloaded: try a lower-quality stream.")
        }
    }

    /// What the listener can do once oton has given up, in their language: like
    /// ``recoverySuggestion(in:)``, without promising the retries that are over.
    public var localizedFinalRecoverySuggestion: String { finalRecoverySuggestion(in: .current) }

    public func finalRecoverySuggestion(in catalogue: MessageCatalogue) -> String {
        switch self {
        case .networkUnavailable:
            return catalogue.tr("Check your internet connection.")
        case let .streamUnavailable(reason):
            if case .sentNothing = reason {
                return catalogue.tr("The server may be overloaded or the station's source offline. If it keeps happening, check the stream URL.")
            }
            if case .serverEnded = reason {
                return catalogue.tr("Its source may have stopped or the server restarted. Try again later.")
            }
            if case .refused = reason {
                return catalogue.tr("Try again later; if it keeps happening, check the stream URL's host and port.")
            }
            return recoverySuggestion(in: catalogue)
        case .stalled:
            return catalogue.tr("The station or your connection is overloaded: try a lower-quality stream.")
        case .bufferingTimeout, .decodeError, .audioDeviceUnavailable:
            return recoverySuggestion(in: catalogue)
        }
    }

    /// At most this many reconnects in a row for this failure, whatever the policy allows (nil: the
    /// policy decides). A 404 is an answer, not a network blip: one more try covers an Icecast mount
    /// whose source is reconnecting, more only delays the message.
    public var retryLimit: Int? {
        if case .streamUnavailable(reason: .notFound) = self { return 1 }
        return nil
    }

    /// Whether an automatic reconnect can plausibly help. Failures that need
    /// the listener to change something (wrong URL, missing codecs, no sound
    /// device, access refused) are not retried.
    public var isRetryable: Bool {
        switch self {
        case .networkUnavailable, .bufferingTimeout, .decodeError, .stalled:
            true
        case .audioDeviceUnavailable:
            false
        case .streamUnavailable(let reason):
            switch reason {
            case .notFound, .serverError, .unknown, .serverEnded, .refused: true
            case .secureConnectionFailed: true  // a handshake can also fail on a flaky network; recording keeps trying
            case .httpStatus(let status): status == 408 || status == 429
            case .sentNothing: true
            case .notAuthorized, .notAudio, .unsupportedFormat, .tooManyRedirects, .redirectToUnsupportedScheme: false
            case let .playlist(problem): problem.isRetryable
            }
        }
    }
}
