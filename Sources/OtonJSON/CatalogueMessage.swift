/// An error told as an English message of the catalogues with `{placeholders}` and their values,
/// so whoever shows it can translate it (``text(_:)``) and a log or test can read it in English
/// (``description``). Immutable.
public struct CatalogueMessage: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public let values: [String: String]

    public init(_ message: String, _ values: [String: String] = [:]) {
        self.message = message
        self.values = values
    }

    public var description: String { MessageTemplate.filled(message, values) }

    /// Through `translate` (a plugin's `HostHandle.tr`, the host's `tr`).
    public func text(_ translate: (String, [String: String]) -> String) -> String { translate(message, values) }
}
