import Foundation
import Logging
import OtonEvents
import OtonSupport
import PluginAPI
import Synchronization

/// The one place that decides "is this a wish": it listens to the track events of every session it
/// is given and, when a track with a new sequence matches the wishlist, publishes
/// `org.oton.wish.heard` on that session's bus (OTON_EVENT_NAME_WISH_HEARD).
///
/// Recording (`oton record --wishlist`, `kept` set): the event also says whether the file sink keeps
/// the track — not when its identity (``WishIdentity``) was kept before (unless `again`), nor while
/// another station of this process is recording the same track — and a kept file's
/// `org.oton.recording.finished` (matched by sequence) adds the identity to ``KeptWishes``.
public final class WishWatcher: Sendable {
    /// A wish that started playing somewhere.
    public struct Heard: Sendable, Equatable {
        public let station: String
        public let artist: String?
        public let title: String?
        public let sequence: UInt64
        public let wish: String
        public let identity: String
        /// False for the first track a connection names: it was joined in its middle.
        public let fromStart: Bool

        /// The fields of `org.oton.wish.heard` (recording adds keep and why).
        public var fields: [(key: String, value: String)] {
            var fields: [(key: String, value: String)] = [(OTON_FIELD_STATION, station)]
            if let artist { fields.append((OTON_FIELD_ARTIST, artist)) }
            fields.append((OTON_FIELD_TITLE, title ?? ""))
            return fields + [
                (OTON_FIELD_SEQUENCE, String(sequence)), (OTON_FIELD_WISH, wish), (OTON_FIELD_IDENTITY, identity),
                (OTON_FIELD_FROM_START, fromStart ? "true" : "false"),
            ]
        }

        /// The event on `bus` (nil if its registry refuses the name, which it never does for this one).
        public func event(on bus: PluginBus, extra: [(key: String, value: String)] = []) -> BusEvent? {
            bus.registry.kind(for: OTON_EVENT_NAME_WISH_HEARD).map { kind in
                BusEvent(kind: kind, name: OTON_EVENT_NAME_WISH_HEARD, source: "host", extraFields: fields + extra)
            }
        }
    }

    private let wishes: [Wish]
    private let kept: KeptWishes?
    private let again: Bool
    private let onHeard: @Sendable (Heard) -> Void
    /// identity → the station recording it now (recording only).
    private let inFlight = Mutex<[String: String]>([:])
    private let logger = Logger(label: "oton.wishlist")

    public init(wishes: [Wish], kept: KeptWishes? = nil, again: Bool = false, onHeard: @escaping @Sendable (Heard) -> Void = { _ in }) {
        self.wishes = wishes
        self.kept = kept
        self.again = again
        self.onHeard = onHeard
    }

    /// Starts watching one session's bus; close the result when the session ends.
    public func watch(bus: PluginBus, station: String) -> Watch {
        Watch(watcher: self, bus: bus, station: station)
    }

    /// Comparison steps one title may cost against the whole list: a list of hundreds of wishes
    /// takes well under a tenth of it; past it the rest of the list is not tried for that title
    /// (issue 39, N6: a pathological 4 MiB list cost 3.6 s of CPU per title).
    package static let stepsPerTitle = 4_000_000
    private let overBudgetSaid = Mutex(false)

    /// The wish a track is, if any (the first that matches, in the list's order).
    public func match(_ track: TrackInfo) -> Wish? {
        guard !track.isBreak else { return nil }
        let folded = FoldedTrack(artist: track.artist, title: track.title, rawTitle: track.rawTitle)
        var budget = Self.stepsPerTitle
        for (index, wish) in wishes.enumerated() {
            guard let found = wish.matches(folded, budget: &budget) else {
                if overBudgetSaid.withLock({ said in
                    defer { said = true }; return !said
                }) {
                    logger.warning(
                        "\(tr("the wishlist is too long to compare with a title this long: {count} of its {total} wishes were not tried; shorten the list or its patterns", ["count": String(wishes.count - index), "total": String(wishes.count)]))"
                    )
                }
                return nil
            }
            if found { return wish }
        }
        return nil
    }

    /// Decides keep and why for a heard wish (recording only), claiming the identity while it records.
    fileprivate func decide(identity: String, station: String) -> (keep: Bool, why: String?) {
        guard let kept else { return (false, nil) }
        if !again && kept.contains(identity) { return (false, "kept-before") }
        return inFlight.withLock { claims in
            if let holder = claims[identity], holder != station { return (false, "being-kept") }
            claims[identity] = station
            return (true, nil)
        }
    }

    fileprivate func finished(identity: String, station: String, keptFile: String?) {
        inFlight.withLock { claims in
            if claims[identity] == station { claims[identity] = nil }
        }
        guard let keptFile, let kept else { return }
        do {
            try kept.add(identity, station: station, file: keptFile)
        } catch {
            logger.warning("\(error.description)")
        }
    }

    fileprivate func release(station: String) {
        inFlight.withLock { claims in claims = claims.filter { $0.value != station } }
    }

    fileprivate var isRecording: Bool { kept != nil }

    fileprivate func heard(_ heard: Heard) { onHeard(heard) }

    /// One session's subscription: track events in, wish events out, and (recording) the finished files.
    public final class Watch: MailboxConsumer, @unchecked Sendable {  // state is touched on the mailbox's thread only
        private let watcher: WishWatcher
        private let bus: PluginBus
        private let station: String
        private let doneKind: UInt32?
        private var subscription: BusSubscription?
        private var lastSequence: UInt64?
        /// Whether this connection named a track (or a break) yet: its first one is heard from its middle.
        private var connectionNamedATrack = false
        /// Sequences announced with keep=true → their identity, until their file is finished.
        private var keeping: [UInt64: String] = [:]
        /// Set by close(): the titles still queued are not matched (a stop must not wait for them),
        /// the finished files still are.
        private let closing = Atomic<Bool>(false)

        fileprivate init(watcher: WishWatcher, bus: PluginBus, station: String) {
            self.watcher = watcher
            self.bus = bus
            self.station = station
            doneKind = bus.registry.kind(for: OTON_EVENT_NAME_RECORDING_DONE)
            let kinds = Set([OTON_EVENT_TRACK, OTON_EVENT_STATE] + (watcher.isRecording ? [doneKind].compactMap { $0 } : []))
            subscription = BusSubscription(bus: bus, id: "oton.wishlist", kinds: .only(kinds), consumer: self)
        }

        public func deliver(event: FrozenEvent) {
            if case let .track(track, sequence) = event.event.payload {
                guard sequence != lastSequence, !closing.load(ordering: .relaxed) else { return }
                lastSequence = sequence
                let fromStart = connectionNamedATrack
                if track.title != nil || track.artist != nil || track.rawTitle != nil || track.isBreak { connectionNamedATrack = true }
                announce(track, sequence: sequence, fromStart: fromStart)
            } else if case let .state(state) = event.event.payload {
                if state.state == .connecting { connectionNamedATrack = false }  // a (re)connection joins a track in its middle
            } else if event.event.kind == doneKind {
                let fields = Dictionary(event.event.fields, uniquingKeysWith: { _, last in last })
                guard let sequence = fields[OTON_FIELD_SEQUENCE].flatMap(UInt64.init), let identity = keeping.removeValue(forKey: sequence) else { return }
                // Only a whole track counts as kept: a wish kept from its middle (--partial keep) is kept again when heard whole.
                let keptFile = fields[OTON_FIELD_STATUS] == "complete" ? fields[OTON_FIELD_PATH].flatMap { $0.isEmpty ? nil : $0 } : nil
                watcher.finished(identity: identity, station: station, keptFile: keptFile)
            }
        }

        private func announce(_ track: TrackInfo, sequence: UInt64, fromStart: Bool) {
            guard let wish = watcher.match(track),
                let identity = WishIdentity.of(artist: track.artist, title: track.title, rawTitle: track.rawTitle)
            else { return }
            let heard = Heard(
                station: station, artist: track.artist, title: track.title ?? track.rawTitle, sequence: sequence,
                wish: wish.shown, identity: identity, fromStart: fromStart)
            var extra: [(key: String, value: String)] = []
            if watcher.isRecording {
                let decision = watcher.decide(identity: identity, station: station)
                extra.append((OTON_FIELD_KEEP, decision.keep ? "true" : "false"))
                if let why = decision.why { extra.append((OTON_FIELD_WHY, why)) }
                if decision.keep { keeping[sequence] = identity }
            }
            if let event = heard.event(on: bus, extra: extra) { bus.publish(event) }
            watcher.heard(heard)
        }

        public func deliver(media: MediaPacket, extraFlags: UInt32) {}
        public func deliverDropNotice(_ counts: Mailbox.DropCounts) {}

        /// Waits for what is queued (the last files' events; titles still queued are dropped), then stops watching.
        public func close() {
            closing.store(true, ordering: .relaxed)
            subscription?.close(drain: true) { [watcher, station] in watcher.release(station: station) }
            subscription = nil
        }
    }
}
