/// Growing delay between attempts while a service is down: doubles from
/// `initial` up to `maximum`; a delay the service asked for (rate limits)
/// wins when it is longer. Reset by a success.
public struct RetrySchedule: Equatable, Sendable {
    public let initial: Double
    public let maximum: Double
    public private(set) var failures = 0

    public init(initial: Double, maximum: Double) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// Seconds to wait after one more failure.
    public mutating func nextDelay(requested: Double? = nil) -> Double {
        failures += 1
        let grown = min(maximum, initial * Double(1 << min(failures - 1, 30)))
        guard let requested else { return grown }
        return max(requested, 0.05)
    }

    public mutating func reset() { failures = 0 }
}
