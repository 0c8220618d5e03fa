import XCTest

@testable import OtonHost

final class PlaybackErrorClassifierTests: XCTestCase {
    private let resource = "gst-resource-error-quark"
    private let stream = "gst-stream-error-quark"
    private let core = "gst-core-error-quark"
    private let soupPath =
        "../ext/soup/gstsouphttpsrc.c(1546): gst_soup_http_src_parse_status (): "
        + "/GstPlayBin:playbin0/GstURIDecodeBin:uridecodebin0/GstSoupHTTPSrc:source:\n"

    private func classify(
        _ domain: String, _ code: Int, _ message: String, debug: String? = nil,
        status: Int? = nil, element: String? = nil
    ) -> PlaybackErrorKind {
        PlaybackErrorClassifier.classify(
            domain: domain, code: code, message: message, debug: debug,
            httpStatus: status, sourceElement: element)
    }

    func testCodesMatchGstErrorHeader() {
        XCTAssertEqual(GStreamerErrorCode.Resource.notFound, 3)
        XCTAssertEqual(GStreamerErrorCode.Resource.openRead, 5)
        XCTAssertEqual(GStreamerErrorCode.Resource.openWrite, 6)
        XCTAssertEqual(GStreamerErrorCode.Resource.openReadWrite, 7)
        XCTAssertEqual(GStreamerErrorCode.Resource.read, 9)
        XCTAssertEqual(GStreamerErrorCode.Resource.notAuthorized, 15)
        XCTAssertEqual(GStreamerErrorCode.Stream.typeNotFound, 4)
        XCTAssertEqual(GStreamerErrorCode.Stream.wrongType, 5)
        XCTAssertEqual(GStreamerErrorCode.Stream.codecNotFound, 6)
        XCTAssertEqual(GStreamerErrorCode.Stream.decode, 7)
        XCTAssertEqual(GStreamerErrorCode.Core.missingPlugin, 12)
    }

    // MARK: HTTP

    func testSoup404IsNotFound() {
        XCTAssertEqual(
            classify(resource, 3, "Not Found", debug: soupPath + "Not Found (404), URL: http://x/live, Redirect to: (NULL)"),
            .streamUnavailable(reason: .notFound))
    }

    func testStatusInMessageText() {
        XCTAssertEqual(classify(resource, 3, "Not Found (404)"), .streamUnavailable(reason: .notFound))
    }

    func testExplicitStatusWins() {
        XCTAssertEqual(
            classify(resource, 5, "Service Unavailable", status: 503),
            .streamUnavailable(reason: .serverError(status: 503)))
    }

    func testServerErrorFromDebug() {
        XCTAssertEqual(
            classify(resource, 5, "Bad Gateway", debug: soupPath + "Bad Gateway (502), URL: http://x/"),
            .streamUnavailable(reason: .serverError(status: 502)))
    }

    func test403IsNotAuthorized() {
        XCTAssertEqual(
            classify(resource, 15, "Forbidden", debug: soupPath + "Forbidden (403), URL: http://x/"),
            .streamUnavailable(reason: .notAuthorized))
    }

    func testNotAuthorizedCodeWithoutStatus() {
        XCTAssertEqual(classify(resource, 15, "Not authorized"), .streamUnavailable(reason: .notAuthorized))
    }

    func test410IsNotFound() {
        XCTAssertEqual(classify(resource, 5, "Gone", status: 410), .streamUnavailable(reason: .notFound))
    }

    func testOtherHTTPStatus() {
        XCTAssertEqual(
            classify(resource, 5, "Too Many Requests", status: 429),
            .streamUnavailable(reason: .httpStatus(429)))
    }

    func testInvalidExplicitStatusIsIgnored() {
        XCTAssertEqual(classify(resource, 3, "Not Found", status: 0), .streamUnavailable(reason: .notFound))
    }

    // MARK: Network

    func testCannotResolveReportedAsNotFoundIsNetwork() {
        XCTAssertEqual(
            classify(
                resource, 3, "Could not resolve server name.",
                debug: soupPath + "Cannot resolve hostname (2), URL: http://nope.invalid/"),
            .networkUnavailable)
    }

    func testCannotResolveHostname() {
        XCTAssertEqual(classify(resource, 9, "Cannot resolve hostname"), .networkUnavailable)
    }

    func testConnectionRefused() {
        XCTAssertEqual(
            classify(
                resource, 5, "Could not establish connection to server.",
                debug: soupPath + "Cannot connect to destination (4), URL: http://127.0.0.1:1/"),
            .networkUnavailable)
    }

    func testCouldNotConnect() {
        XCTAssertEqual(classify(resource, 5, "Could not connect"), .networkUnavailable)
    }

    func testOpenReadWithoutDetailsIsNetwork() {
        XCTAssertEqual(classify(resource, 5, "Could not open resource for reading."), .networkUnavailable)
    }

    func testReadErrorIsNetwork() {
        XCTAssertEqual(
            classify(resource, 9, "A network error occurred, or the server closed the connection unexpectedly."),
            .networkUnavailable)
    }

    func testSecureConnectionFailureIsATLSErrorWithItsOwnAdvice() {
        let kind = classify(resource, 5, "Secure connection setup failed.")
        XCTAssertEqual(kind, .streamUnavailable(reason: .secureConnectionFailed))
        XCTAssertTrue(kind.recoverySuggestion.contains("SSL_CERT_FILE"))
        XCTAssertTrue(kind.isRetryable, "a handshake can fail on a flaky network too")
    }

    func testUnknownResourceErrorIsStreamUnknown() {
        XCTAssertEqual(classify(resource, 11, "Could not seek."), .streamUnavailable(reason: .unknown))
    }

    // MARK: Not audio / codecs

    func testTypeNotFoundIsNotAudio() {
        XCTAssertEqual(classify(stream, 4, "Could not determine type of stream."), .streamUnavailable(reason: .notAudio))
    }

    func testTextFileIsNotAudio() {
        XCTAssertEqual(classify(stream, 5, "This appears to be a text file"), .streamUnavailable(reason: .notAudio))
    }

    func testNoDecoderForHTMLIsNotAudio() {
        XCTAssertEqual(
            classify(stream, 6, "No decoder available for type 'text/html'."),
            .streamUnavailable(reason: .notAudio))
    }

    func testNoDecoderForAudioIsUnsupportedFormat() {
        XCTAssertEqual(
            classify(stream, 6, "No decoder available for type 'audio/x-opus'."),
            .streamUnavailable(reason: .unsupportedFormat))
    }

    func testMissingPluginIsUnsupportedFormat() {
        XCTAssertEqual(
            classify(core, 12, "Your GStreamer installation is missing a plug-in."),
            .streamUnavailable(reason: .unsupportedFormat))
    }

    func testDecodeError() {
        XCTAssertEqual(classify(stream, 7, "Could not decode stream."), .decodeError)
    }

    func testDemuxError() {
        XCTAssertEqual(classify(stream, 9, "Could not demultiplex stream."), .decodeError)
    }

    func testInternalDataStreamErrorIsDecodeError() {
        XCTAssertEqual(
            classify(stream, 1, "Internal data stream error.", debug: "streaming stopped, reason not-negotiated (-4)"),
            .decodeError)
    }

    func testOtherCoreErrorIsDecodeError() {
        XCTAssertEqual(classify(core, 7, "GStreamer encountered a general negotiation error."), .decodeError)
    }

    // MARK: Audio device

    func testAlsaSinkOpenWrite() {
        XCTAssertEqual(
            classify(
                resource, 6, "Could not open audio device for playback. Device is being used by another application.",
                element: "alsasink0"),
            .audioDeviceUnavailable)
    }

    func testOpenWriteWithoutElementIsDevice() {
        XCTAssertEqual(classify(resource, 6, "Could not open resource for writing."), .audioDeviceUnavailable)
    }

    func testOpenReadWriteIsDevice() {
        XCTAssertEqual(classify(resource, 7, "Could not open resource for reading and writing."), .audioDeviceUnavailable)
    }

    func testPulseSinkConnectionRefusedIsDeviceNotNetwork() {
        let debug =
            "../ext/pulse/pulsesink.c(616): gst_pulseringbuffer_open_device (): "
            + "/GstPlayBin:playbin0/GstPlaySink:playsink/GstBin:abin/GstAutoAudioSink:audiosink/GstPulseSink:audiosink-actual-sink-pulse:\n"
            + "Failed to connect: Connection refused"
        XCTAssertEqual(classify(resource, 1, "Failed to connect: Connection refused", debug: debug), .audioDeviceUnavailable)
    }

    func testSinkStateChangeFailureIsDevice() {
        XCTAssertEqual(
            classify(core, 4, "Failed to change state", element: "autoaudiosink0-actual-sink-pipewire"),
            .audioDeviceUnavailable)
    }

    // MARK: Other domains

    func testUnknownDomainWithNetworkWording() {
        XCTAssertEqual(classify("g-io-error-quark", 0, "Connection timed out"), .networkUnavailable)
    }

    func testUnknownDomain() {
        XCTAssertEqual(classify("gst-library-error-quark", 1, "Library failed"), .streamUnavailable(reason: .unknown))
    }

    func testStatusExtraction() {
        XCTAssertEqual(PlaybackErrorClassifier.httpStatus(in: "Not Found (404), URL: x"), 404)
        XCTAssertEqual(PlaybackErrorClassifier.httpStatus(in: "Cannot resolve (2)"), nil)
        XCTAssertEqual(PlaybackErrorClassifier.httpStatus(in: "(999) (503)"), 503)
        XCTAssertEqual(PlaybackErrorClassifier.httpStatus(in: "(40"), nil)
        XCTAssertEqual(PlaybackErrorClassifier.httpStatus(in: ""), nil)
        XCTAssertEqual(PlaybackErrorClassifier.httpStatus(in: "(٤٠٤)"), nil)
    }
}
