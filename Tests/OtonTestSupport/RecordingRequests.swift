import Foundation
import OtonHost

/// A PlayerRequestSink that records what it was asked, for assertions.
public final class RecordingRequests: PlayerRequestSink, @unchecked Sendable {
    private let condition = NSCondition()
    private var received: [(PlayerRequest, String)] = []

    public init() {}

    public func submit(_ request: PlayerRequest, from source: String) {
        condition.lock()
        received.append((request, source))
        condition.broadcast()
        condition.unlock()
    }

    public var requests: [PlayerRequest] {
        condition.lock(); defer { condition.unlock() }
        return received.map(\.0)
    }

    public var sources: [String] {
        condition.lock(); defer { condition.unlock() }
        return received.map(\.1)
    }

    /// Waits until at least `count` requests arrived (or the timeout passed) and returns them.
    public func wait(forCount count: Int, timeout: TimeInterval = 10) -> [PlayerRequest] {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock(); defer { condition.unlock() }
        while received.count < count && condition.wait(until: deadline) {}
        return received.map(\.0)
    }
}
