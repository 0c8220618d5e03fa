import OtonEvents
import PluginAPI
import Synchronization

/// A title a plugin suggests for a station whose stream names no song (OTON_EVENT_NAME_TITLE_SUGGESTED,
/// published by the song recognition plugin): what it says, for the Player to weigh.
package struct TitleSuggestion: Sendable, Equatable {
    /// The track event's station the suggestion was made for: one for another station is stale.
    package var station: String
    package var artist: String?
    /// Empty: the suggestion is withdrawn.
    package var title: String
    /// OTON_FIELD_TITLE_SOURCE's value; a suggestion is never the stream's own word.
    package var source: TitleSource

    package init?(fields: [(key: String, value: String)]) {
        let values = Dictionary(fields, uniquingKeysWith: { _, last in last })
        guard let station = values[OTON_FIELD_STATION], let title = values[OTON_FIELD_TITLE] else { return nil }
        self.station = station
        self.title = title
        artist = values[OTON_FIELD_ARTIST].flatMap { $0.isEmpty ? nil : $0 }
        let source = values[OTON_FIELD_TITLE_SOURCE].flatMap(TitleSource.init(wireName:)) ?? .recognised
        self.source = source.isStream ? .recognised : source
    }
}

/// The Player's ear for title suggestions on its bus: each one is handed to `heard` (on the
/// mailbox's thread; the Player hops to its queue). Closed with the Player.
package final class TitleSuggestionListener: MailboxConsumer {
    private let heard: @Sendable (TitleSuggestion) -> Void
    private let subscription = Mutex<BusSubscription?>(nil)

    package init(bus: PluginBus, heard: @escaping @Sendable (TitleSuggestion) -> Void) {
        self.heard = heard
        guard let kind = bus.registry.kind(for: OTON_EVENT_NAME_TITLE_SUGGESTED) else { return }
        let made = BusSubscription(bus: bus, id: "oton.title-suggestions", kinds: .only([kind]), consumer: self)
        subscription.withLock { $0 = made }
    }

    package func deliver(event: FrozenEvent) {
        if let suggestion = TitleSuggestion(fields: event.event.fields) { heard(suggestion) }
    }

    package func deliver(media: MediaPacket, extraFlags: UInt32) {}
    package func deliverDropNotice(_ counts: Mailbox.DropCounts) {}

    package func close() { subscription.withLock { $0.take() }?.close(drain: false) }
}
