import Foundation
import Logging
import OtonSupport
import PluginAPI
import Synchronization

/// Delivers events and media to subscribers (plugin instances, the
/// `--events` writer), each through its own bounded mailbox. Publishing
/// never blocks and never runs subscriber code on the publisher's thread.
public final class PluginBus: Sendable {
    /// Which event kinds a subscriber receives.
    public enum KindFilter: Sendable {
        case all
        case only(Set<UInt32>)

        package func accepts(_ kind: UInt32) -> Bool {
            switch self {
            case .all: true
            case let .only(kinds): kinds.contains(kind)
            }
        }
    }

    package struct Subscription: Sendable {
        package let id: String
        package let kinds: KindFilter
        package let taps: UInt32
        package let pcm: PCMFormatChoice
        package let mailbox: Mailbox
    }

    public let registry: EventKindRegistry
    private let logger: Logger
    private let subscriptions = Mutex<[Subscription]>([])
    private let latest = Mutex<[UInt32: FrozenEvent]>([:])
    private let lastDropReport = Mutex<[String: Int64]>([:])
    /// Held while one event is offered to every subscriber, so that an event a subscriber
    /// publishes in reaction (a plugin's reply to a track change) can never reach another
    /// subscriber before the event it reacts to. Recursive: a drop reported from inside an
    /// offer publishes a `dropped` event on the same thread. Offers never block, so it is short.
    private let publishing = NSRecursiveLock()

    public init(registry: EventKindRegistry = EventKindRegistry(), logger: Logger = Logger(label: "oton.bus")) {
        self.registry = registry
        self.logger = logger
    }

    /// Makes a mailbox whose losses this bus reports.
    public func makeMailbox(for id: String, limits: Mailbox.Limits = Mailbox.Limits()) -> Mailbox {
        Mailbox(name: id, limits: limits) { [weak self] counts, tap in
            self?.reportDrop(of: id, counts: counts, tap: tap)
        }
    }

    /// Adds a subscriber. The current track and state are replayed to it first
    /// (flag OTON_EVENT_FLAG_REPLAY), so a late subscriber knows where things stand.
    public func subscribe(id: String, kinds: KindFilter, taps: UInt32 = 0, pcm: PCMFormatChoice = .standard, mailbox: Mailbox) {
        let replay = latest.withLock { latest in
            [OTON_EVENT_TRACK, OTON_EVENT_STATE].compactMap { latest[$0] }
        }
        for frozen in replay where kinds.accepts(frozen.event.kind) {
            var event = frozen.event
            event.flags |= OTON_EVENT_FLAG_REPLAY
            mailbox.offer(FrozenEvent(event))
        }
        subscriptions.withLock { $0.append(Subscription(id: id, kinds: kinds, taps: taps, pcm: pcm, mailbox: mailbox)) }
    }

    public func unsubscribe(id: String) {
        subscriptions.withLock { $0.removeAll { $0.id == id } }
    }

    /// The union of media taps that current subscribers asked for (OTON_TAP_* bits).
    public var requestedTaps: UInt32 {
        subscriptions.withLock { $0.reduce(0) { $0 | $1.taps } }
    }

    /// The distinct PCM formats the subscribers of the PCM tap chose, in a stable order: one
    /// pipeline branch each. Empty when nobody wants PCM.
    public var requestedPCMFormats: [PCMFormatChoice] {
        subscriptions.withLock { Set($0.filter { $0.taps & OTON_TAP_PCM != 0 }.map(\.pcm)).sorted() }
    }

    /// Publishes to every subscriber of the event's kind except the one named in `event.source`.
    /// Returns the frozen event (for callers that also want to keep it).
    @discardableResult
    public func publish(_ event: BusEvent) -> FrozenEvent {
        let frozen = FrozenEvent(event)
        publishing.lock()
        defer { publishing.unlock() }
        latest.withLock { $0[event.kind] = frozen }
        let targets = subscriptions.withLock { $0 }
        for subscription in targets where subscription.id != event.source && subscription.kinds.accepts(event.kind) {
            subscription.mailbox.offer(frozen)
        }
        return frozen
    }

    /// Hands a media packet to every subscriber of its tap (of the PCM tap: those that chose its format).
    public func publish(media packet: MediaPacket) {
        let targets = subscriptions.withLock { $0 }
        for subscription in targets
        where subscription.taps & packet.tap != 0
            && (packet.format.pcmChoice == nil || packet.format.pcmChoice == subscription.pcm)
        {
            subscription.mailbox.offer(packet)
        }
    }

    /// The latest event of `kind` published on this bus, if any.
    public func current(_ kind: UInt32) -> FrozenEvent? {
        latest.withLock { $0[kind] }
    }

    /// Losses are never silent: logged, and announced as a `dropped` event to the others,
    /// both at most once a second per victim so that an overflow cannot cause a storm.
    private func reportDrop(of id: String, counts: Mailbox.DropCounts, tap: UInt32) {
        let now = Clock.monotonicNanoseconds()
        let due = lastDropReport.withLock { last -> Bool in
            if let previous = last[id], now - previous < 1_000_000_000 { return false }
            last[id] = now
            return true
        }
        guard due else { return }
        let values = ["plugin": id, "tap": String(tap), "events": String(counts.events), "bytes": String(counts.mediaBytes)]
        logger.warning(
            "\(tap == 0 ? tr("{plugin} is falling behind: its queue overflowed and events were dropped (events dropped so far: {events}, media bytes: {bytes})", values) : tr("{plugin} is falling behind: its queue overflowed and media (tap {tap}) were dropped (events dropped so far: {events}, media bytes: {bytes})", values))"
        )
        let drop = DropInfo(pluginID: id, mediaTap: tap, droppedEvents: counts.events, droppedBytes: counts.mediaBytes)
        publish(BusEvent(kind: OTON_EVENT_DROPPED, name: "dropped", source: id, payload: .dropped(drop)))
    }
}
