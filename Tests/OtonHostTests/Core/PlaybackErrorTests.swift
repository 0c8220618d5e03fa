import XCTest

@testable import OtonHost

final class PlaybackErrorTests: XCTestCase {
    private let allKinds: [PlaybackErrorKind] = [
        .networkUnavailable,
        .streamUnavailable(reason: .notFound),
        .streamUnavailable(reason: .notAuthorized),
        .streamUnavailable(reason: .serverError(status: 503)),
        .streamUnavailable(reason: .httpStatus(418)),
        .streamUnavailable(reason: .notAudio),
        .streamUnavailable(reason: .unsupportedFormat),
        .streamUnavailable(reason: .unknown),
        .bufferingTimeout,
        .decodeError,
        .audioDeviceUnavailable,
    ]

    func testStableCodes() {
        XCTAssertEqual(PlaybackErrorKind.networkUnavailable.code, "network-unavailable")
        XCTAssertEqual(PlaybackErrorKind.streamUnavailable(reason: .notFound).code, "stream-unavailable")
        XCTAssertEqual(PlaybackErrorKind.streamUnavailable(reason: .serverError(status: 502)).code, "stream-unavailable")
        XCTAssertEqual(PlaybackErrorKind.bufferingTimeout.code, "buffering-timeout")
        XCTAssertEqual(PlaybackErrorKind.decodeError.code, "decode-error")
        XCTAssertEqual(PlaybackErrorKind.audioDeviceUnavailable.code, "audio-device-unavailable")
    }

    func testReasonCodes() {
        XCTAssertEqual(StreamUnavailableReason.notFound.code, "not-found")
        XCTAssertEqual(StreamUnavailableReason.notAudio.code, "not-audio")
        XCTAssertEqual(StreamUnavailableReason.serverError(status: 500).code, "server-error")
        XCTAssertEqual(StreamUnavailableReason.unsupportedFormat.code, "unsupported-format")
    }

    func testEveryKindHasOneLineMessageAndSuggestion() {
        for kind in allKinds {
            for text in [kind.message, kind.recoverySuggestion] {
                XCTAssertFalse(text.isEmpty, "\(kind)")
                XCTAssertFalse(text.contains("\n"), "\(kind)")
                XCTAssertTrue(text.hasSuffix("."), "\(kind): \(text)")
                XCTAssertLessThan(text.count, 160, "\(kind): \(text)")
            }
            XCTAssertNotEqual(kind.message, kind.recoverySuggestion)
        }
    }

    func testCodesAreMachineFriendly() {
        for kind in allKinds {
            XCTAssertTrue(kind.code.allSatisfy { $0.isLowercase || $0 == "-" }, kind.code)
        }
    }

    func testMessagesMentionHTTPStatus() {
        XCTAssertTrue(PlaybackErrorKind.streamUnavailable(reason: .serverError(status: 503)).message.contains("503"))
        XCTAssertTrue(PlaybackErrorKind.streamUnavailable(reason: .notFound).message.contains("404"))
    }

    func testRetryability() {
        let retryable = allKinds.filter(\.isRetryable)
        XCTAssertEqual(
            retryable,
            [
                .networkUnavailable,
                .streamUnavailable(reason: .notFound),
                .streamUnavailable(reason: .serverError(status: 503)),
                .streamUnavailable(reason: .unknown),
                .bufferingTimeout,
                .decodeError,
            ])
        XCTAssertTrue(PlaybackErrorKind.streamUnavailable(reason: .httpStatus(429)).isRetryable)
        XCTAssertTrue(PlaybackErrorKind.streamUnavailable(reason: .httpStatus(408)).isRetryable)
    }
}
