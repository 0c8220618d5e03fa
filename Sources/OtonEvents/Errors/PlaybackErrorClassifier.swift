/// The parts of a GStreamer `GST_MESSAGE_ERROR` the classifier looks at.
public struct GStreamerErrorReport: Hashable, Sendable {
    /// `g_quark_to_string(error->domain)`, e.g. "gst-resource-error-quark".
    public var domain: String
    /// `error->code` within that domain (see gsterror.h).
    public var code: Int
    /// `error->message` (translated, human text).
    public var message: String
    /// The debug string from `gst_message_parse_error`; contains the
    /// element path, e.g. ".../GstPulseSink:pulsesink0", and for souphttpsrc
    /// "Not Found (404), URL: …".
    public var debug: String?
    /// The "http-status-code" from the message details, when available.
    public var httpStatus: Int?
    /// Name or type of the element that posted the error (`GST_MESSAGE_SRC`).
    public var sourceElement: String?

    public init(
        domain: String, code: Int, message: String, debug: String? = nil,
        httpStatus: Int? = nil, sourceElement: String? = nil
    ) {
        self.domain = domain
        self.code = code
        self.message = message
        self.debug = debug
        self.httpStatus = httpStatus
        self.sourceElement = sourceElement
    }
}

/// GStreamer error domains and the codes used here, as in
/// /usr/include/gstreamer-1.0/gst/gsterror.h (GStreamer 1.22).
public enum GStreamerErrorCode {
    public static let coreDomain = "gst-core-error-quark"
    public static let libraryDomain = "gst-library-error-quark"
    public static let resourceDomain = "gst-resource-error-quark"
    public static let streamDomain = "gst-stream-error-quark"

    public enum Core {
        public static let failed = 1, stateChange = 4, negotiation = 7, missingPlugin = 12
    }
    public enum Resource {
        public static let failed = 1, notFound = 3, busy = 4, openRead = 5, openWrite = 6
        public static let openReadWrite = 7, read = 9, write = 10, notAuthorized = 15
    }
    public enum Stream {
        public static let failed = 1, notImplemented = 3, typeNotFound = 4, wrongType = 5
        public static let codecNotFound = 6, decode = 7, demux = 9, format = 11
    }
}

/// Maps GStreamer errors to ``PlaybackErrorKind``.
///
/// Rules, first match wins:
/// 1. The error comes from an audio sink (element name/type contains "sink",
///    or the debug path contains "Sink:", e.g. "GstPulseSink:") → device.
/// 2. Resource errors:
///    an HTTP status (explicit, or "(NNN)" in message/debug) decides:
///    404/410 → notFound, 401/402/403/407 → notAuthorized, 5xx →
///    serverError, other → httpStatus. Then NOT_AUTHORIZED → notAuthorized.
///    Then TLS wording ("secure connection", "certificate", "tls") →
///    secureConnectionFailed (souphttpsrc: "Secure connection setup failed.").
///    Then network wording ("resolve", "connect", "timed out", …) →
///    networkUnavailable — souphttpsrc reports "Could not resolve server
///    name." as NOT_FOUND, so wording is checked before the code.
///    Then NOT_FOUND → notFound, OPEN_READ/READ → networkUnavailable,
///    OPEN_WRITE/OPEN_READ_WRITE/WRITE (only sinks write) → device,
///    anything else → stream unavailable (unknown).
/// 3. Stream errors: TYPE_NOT_FOUND/WRONG_TYPE → notAudio; CODEC_NOT_FOUND →
///    notAudio if the caps named are text/HTML/XML, else unsupportedFormat;
///    everything else (DECODE, DEMUX, FORMAT, FAILED "Internal data stream
///    error", …) → decodeError.
/// 4. Core errors: MISSING_PLUGIN like CODEC_NOT_FOUND; others → decodeError.
/// 5. Library or unknown domains: network wording → networkUnavailable,
///    otherwise stream unavailable (unknown).
public enum PlaybackErrorClassifier {
    public static func classify(_ report: GStreamerErrorReport) -> PlaybackErrorKind {
        typealias Code = GStreamerErrorCode
        let text = (report.message + "\n" + (report.debug ?? "")).lowercased()
        if isFromSink(report) { return .audioDeviceUnavailable }

        switch report.domain {
        case Code.resourceDomain:
            return classifyResource(report, text: text)
        case Code.streamDomain:
            switch report.code {
            case Code.Stream.typeNotFound, Code.Stream.wrongType:
                return .streamUnavailable(reason: .notAudio)
            case Code.Stream.codecNotFound:
                return missingDecoder(text)
            default:
                return .decodeError
            }
        case Code.coreDomain:
            return report.code == Code.Core.missingPlugin ? missingDecoder(text) : .decodeError
        default:
            return mentionsNetworkTrouble(text) ? .networkUnavailable : .streamUnavailable(reason: .unknown)
        }
    }

    /// Convenience for the bus handler.
    public static func classify(
        domain: String, code: Int, message: String, debug: String? = nil,
        httpStatus: Int? = nil, sourceElement: String? = nil
    ) -> PlaybackErrorKind {
        classify(
            GStreamerErrorReport(
                domain: domain, code: code, message: message, debug: debug,
                httpStatus: httpStatus, sourceElement: sourceElement))
    }

    /// The HTTP status named in a souphttpsrc message: "Not Found (404)".
    public static func httpStatus(in text: String) -> Int? {
        let chars = Array(text.utf8)
        guard chars.count >= 5 else { return nil }
        for index in 0...(chars.count - 5) where chars[index] == UInt8(ascii: "(") && chars[index + 4] == UInt8(ascii: ")") {
            let digits = chars[(index + 1)...(index + 3)]
            guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { continue }
            let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            if (100...599).contains(value) { return value }
        }
        return nil
    }

    private static func classifyResource(_ report: GStreamerErrorReport, text: String) -> PlaybackErrorKind {
        typealias Resource = GStreamerErrorCode.Resource
        let status =
            report.httpStatus.flatMap { (100...599).contains($0) ? $0 : nil }
            ?? (isFromHTTPSource(report) ? httpStatus(in: report.message) ?? report.debug.flatMap(httpStatus(in:)) : nil)
        if let status, let kind = classify(httpStatus: status) { return kind }
        if report.code == Resource.notAuthorized { return .streamUnavailable(reason: .notAuthorized) }
        if mentionsTLSFailure(text) { return .streamUnavailable(reason: .secureConnectionFailed) }
        if text.contains("connection refused") { return .streamUnavailable(reason: .refused) }  // the server is down, not the network
        if mentionsNetworkTrouble(text) { return .networkUnavailable }
        switch report.code {
        case Resource.notFound: return .streamUnavailable(reason: .notFound)
        case Resource.openRead, Resource.read: return .networkUnavailable
        case Resource.openWrite, Resource.openReadWrite, Resource.write: return .audioDeviceUnavailable
        default: return .streamUnavailable(reason: .unknown)
        }
    }

    /// The kind an HTTP error status means; nil for 1xx/2xx (no error).
    public static func classify(httpStatus status: Int) -> PlaybackErrorKind? {
        switch status {
        case ..<300: nil
        case 404, 410: .streamUnavailable(reason: .notFound)
        case 401, 402, 403, 407: .streamUnavailable(reason: .notAuthorized)
        case 500...599: .streamUnavailable(reason: .serverError(status: status))
        default: .streamUnavailable(reason: .httpStatus(status))
        }
    }

    private static func missingDecoder(_ text: String) -> PlaybackErrorKind {
        let nonAudio = ["text/", "html", "xml", "application/json"]
        return nonAudio.contains(where: text.contains)
            ? .streamUnavailable(reason: .notAudio)
            : .streamUnavailable(reason: .unsupportedFormat)
    }

    /// souphttpsrc's reports name the URL in their debug text; filesrc's carry source line
    /// numbers such as "gstfilesrc.c(553)" that must not be read as HTTP statuses.
    private static func isFromHTTPSource(_ report: GStreamerErrorReport) -> Bool {
        if let element = report.sourceElement?.lowercased(), element.contains("filesrc") || element.hasPrefix("file") { return false }
        if let debug = report.debug, debug.contains("GstFileSrc") { return false }
        return true
    }

    private static func isFromSink(_ report: GStreamerErrorReport) -> Bool {
        if let element = report.sourceElement?.lowercased(), element.contains("sink") { return true }
        return report.debug?.contains("Sink:") ?? false
    }

    private static func mentionsTLSFailure(_ lowercasedText: String) -> Bool {
        ["secure connection", "certificate", "tls handshake", "tls connection", "ssl"].contains(where: lowercasedText.contains)
    }

    private static func mentionsNetworkTrouble(_ lowercasedText: String) -> Bool {
        let hints = [
            "resolve", "could not connect", "connection refused", "establish connection",
            "network", "timed out", "timeout", "unreachable", "no route to host",
            "connection reset", "closed the connection", "socket",
        ]
        return hints.contains(where: lowercasedText.contains)
    }
}
