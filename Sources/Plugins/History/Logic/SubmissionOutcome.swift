/// An HTTP answer, as the submission worker hands it to a protocol.
public struct HTTPAnswer: Equatable, Sendable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var bodyText: String { String(decoding: body.prefix(2000), as: UTF8.self) }
}

/// What a service's answer means for the listens that were sent.
public enum SubmissionOutcome: Equatable, Sendable {
    /// The service took them: mark them sent.
    case accepted
    /// Try again later; `after` seconds when the service said how long to wait.
    case retry(after: Double?, reason: String)
    /// The credentials are wrong: keep the listens, stop this service, tell the user.
    case unauthorized(String)
    /// These listens can never be accepted: drop them and tell the user.
    case rejected(String)
}
