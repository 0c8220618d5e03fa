import Foundation
import OtonHost

/// A bus subscriber that keeps every event it is given, for assertions.
public final class EventCollector: MailboxConsumer, @unchecked Sendable {
    private let condition = NSCondition()
    private var received: [BusEvent] = []
    public private(set) var dropNotices: [Mailbox.DropCounts] = []
    public private(set) var subscription: BusSubscription?
    public var mailbox: Mailbox { subscription!.mailbox }

    public init(bus: PluginBus, id: String = "test.collector", kinds: PluginBus.KindFilter = .all) {
        subscription = BusSubscription(bus: bus, id: id, kinds: kinds, consumer: self)
    }

    public func deliver(event: FrozenEvent) {
        condition.lock()
        received.append(event.event)
        condition.broadcast()
        condition.unlock()
    }

    public func deliver(media: MediaPacket, extraFlags: UInt32) {}

    public func deliverDropNotice(_ counts: Mailbox.DropCounts) {
        condition.lock()
        dropNotices.append(counts)
        condition.unlock()
    }

    public var events: [BusEvent] {
        condition.lock(); defer { condition.unlock() }
        return received
    }

    /// Waits until an event named `name` arrives; returns it, or nil after the timeout.
    public func wait(for name: String, timeout: TimeInterval = 10, where predicate: (BusEvent) -> Bool = { _ in true }) -> BusEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock(); defer { condition.unlock() }
        while true {
            if let match = received.first(where: { $0.name == name && predicate($0) }) { return match }
            guard condition.wait(until: deadline) else { return nil }
        }
    }
}

public extension BusEvent {
    func field(_ key: String) -> String? { fields.first { $0.key == key }?.value }
}
