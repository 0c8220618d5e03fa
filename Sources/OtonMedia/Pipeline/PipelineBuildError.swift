/// Why a pipeline could not be built: a GStreamer element is missing or would not link.
public struct PipelineBuildError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public let suggestion: String
    /// The element that is not installed, when that is the reason.
    public var missingElement: String?

    public var description: String { "\(message) (\(suggestion))" }

    package static func missing(_ factory: String, package: String) -> PipelineBuildError {
        PipelineBuildError(
            message: "the GStreamer element \"\(factory)\" is not installed",
            suggestion: "install \(package) (scripts/bootstrap does)", missingElement: factory)
    }

    package static func link(_ from: String, _ to: String) -> PipelineBuildError {
        PipelineBuildError(message: "cannot link \(from) to \(to)", suggestion: "check the GStreamer installation with gst-inspect-1.0")
    }
}
