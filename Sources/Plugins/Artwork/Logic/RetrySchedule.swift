/// How long to wait before each new look at the status API when its title does
/// not match yet: 2 s, 4 s, 6 s (three retries after the first attempt).
public struct RetrySchedule: Equatable, Sendable {
    public var delays: [Double]

    public init(delays: [Double] = [2, 4, 6]) {
        self.delays = delays
    }

    /// The delay before attempt `attempt` (0 is the first, at once); nil when there are no more attempts.
    public func delay(before attempt: Int) -> Double? {
        guard attempt > 0 else { return 0 }
        return attempt <= delays.count ? delays[attempt - 1] : nil
    }
}
