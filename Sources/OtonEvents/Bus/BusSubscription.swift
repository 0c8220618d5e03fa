import OtonJSON

/// One of the host's own listeners on the bus (the events file, control-socket subscribers, the
/// status line, the CLI's log lines, tests): a mailbox of its own, started on its consumer, then
/// subscribed to some kinds, and everything undone in one ``close(drain:after:)``. Plugins are
/// subscribed by ``PluginManager``, which also selects their media taps.
///
/// Threading: create and close from any thread; the consumer is called on the mailbox's thread,
/// one event at a time, in bus order.
public final class BusSubscription: Sendable {
    public let id: String
    public let mailbox: Mailbox
    private let bus: PluginBus

    public init(
        bus: PluginBus, id: String, kinds: PluginBus.KindFilter, limits: Mailbox.Limits = Mailbox.Limits(),
        consumer: any MailboxConsumer
    ) {
        self.id = id
        self.bus = bus
        mailbox = bus.makeMailbox(for: id, limits: limits)
        mailbox.start(consumer: consumer)
        bus.subscribe(id: id, kinds: kinds, mailbox: mailbox)
    }

    /// Stops receiving new events. With `drain`, what is already queued is delivered first; `after`
    /// runs on the mailbox's thread once the last delivery is done (e.g. to close a file).
    public func close(drain: Bool = true, after last: @escaping () -> Void = {}) {
        if drain { mailbox.drain() }
        bus.unsubscribe(id: id)
        mailbox.close(after: last)
    }

    /// The line a listener that speaks JSON lines writes when its mailbox lost events
    /// (the same shape as an event line: kind, source, fields).
    public static func droppedLine(source: String, _ counts: Mailbox.DropCounts) -> String {
        "{\"kind\":\"dropped\",\"source\":" + JSONText.quoted(source) + ",\"fields\":{\"dropped_events\":\"\(counts.events)\"}}"
    }
}
