import Foundation

extension ArchiveUploader {
    /// Each request's limits: connecting, the store's first byte after the request, a whole answer,
    /// and a PUT's lowest speed (bytes a second, over `lowSpeedSeconds`). OTON_TEST_UPLOAD_TIMEOUT
    /// (seconds) shortens all of them for the tests.
    struct Timeouts {
        var connectSeconds = 10
        var firstByteSeconds = 30
        var answerSeconds = 60
        var lowSpeedBytes = 1024
        var lowSpeedSeconds = 30

        static var current: Timeouts {
            guard let text = ProcessInfo.processInfo.environment["OTON_TEST_UPLOAD_TIMEOUT"], let seconds = Int(text), seconds > 0 else {
                return Timeouts()
            }
            return Timeouts(
                connectSeconds: seconds, firstByteSeconds: seconds, answerSeconds: 2 * seconds, lowSpeedBytes: 1024, lowSpeedSeconds: seconds)
        }
    }
}
