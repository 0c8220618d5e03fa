import PluginAPI

/// An event in its C form, built once when published and shared (read-only)
/// by every mailbox that delivers it. Freed when the last mailbox is done.
public final class FrozenEvent: @unchecked Sendable {
    public let event: BusEvent
    /// Valid for the life of this object; read-only.
    public let pointer: UnsafePointer<oton_event>

    private let arena: CStringArena
    private let fieldStorage: UnsafeMutablePointer<oton_field>?
    private let payloadStorage: UnsafeMutableRawPointer?
    private let eventStorage: UnsafeMutablePointer<oton_event>

    public init(_ event: BusEvent) {
        self.event = event
        var arena = CStringArena()
        let fields = event.fields
        let nameOffset = arena.add(event.name)
        let sourceOffset = arena.add(event.source)
        let fieldOffsets = fields.map { (arena.add($0.key), arena.add($0.value)) }
        let payloadOffsets = Self.reservePayloadStrings(event.payload, in: &arena)
        arena.seal()

        var fieldStorage: UnsafeMutablePointer<oton_field>?
        if !fields.isEmpty {
            let storage = UnsafeMutablePointer<oton_field>.allocate(capacity: fields.count)
            for (index, offsets) in fieldOffsets.enumerated() {
                storage[index] = oton_field(key: arena.pointer(at: offsets.0), value: arena.pointer(at: offsets.1))
            }
            fieldStorage = storage
        }
        let payloadStorage = Self.makePayload(event.payload, offsets: payloadOffsets, arena: arena)

        let storage = UnsafeMutablePointer<oton_event>.allocate(capacity: 1)
        storage.initialize(
            to: oton_event(
                struct_size: UInt32(MemoryLayout<oton_event>.size),
                kind: event.kind,
                kind_name: arena.pointer(at: nameOffset),
                flags: event.flags,
                field_count: UInt32(fields.count),
                mono_ns: event.monotonicNanoseconds,
                wall_us: event.wallMicroseconds,
                source: arena.pointer(at: sourceOffset),
                payload: payloadStorage.map { UnsafeRawPointer($0) },
                fields: fieldStorage.map { UnsafePointer($0) }
            ))
        self.arena = arena
        self.fieldStorage = fieldStorage
        self.payloadStorage = payloadStorage
        self.eventStorage = storage
        self.pointer = UnsafePointer(storage)
    }

    deinit {
        eventStorage.deallocate()
        fieldStorage?.deallocate()
        payloadStorage?.deallocate()
        arena.free()
    }

    private static func reservePayloadStrings(_ payload: BusEvent.Payload, in arena: inout CStringArena) -> [Int?] {
        func add(_ string: String?) -> Int? { string.map { arena.add($0) } }
        switch payload {
        case .none, .volume:
            return []
        case let .track(track, _):
            return [
                track.title, track.artist, track.rawTitle, track.station, track.genre,
                track.codec, track.artworkURL?.absoluteString, track.streamURL?.absoluteString,
            ].map(add)
        case let .state(state):
            return [state.error?.kind, state.error?.message, state.error?.suggestion].map(add)
        case let .dropped(drop):
            return [add(drop.pluginID)]
        }
    }

    private static func makePayload(_ payload: BusEvent.Payload, offsets: [Int?], arena: CStringArena) -> UnsafeMutableRawPointer? {
        func string(_ index: Int) -> UnsafePointer<CChar>? { arena.pointer(at: offsets[index]) }
        func allocate<T>(_ value: T) -> UnsafeMutableRawPointer {
            let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
            storage.initialize(to: value)
            return UnsafeMutableRawPointer(storage)
        }
        switch payload {
        case .none:
            return nil
        case let .track(track, sequence):
            return allocate(
                oton_track(
                    struct_size: UInt32(MemoryLayout<oton_track>.size),
                    bitrate: UInt32(clamping: track.bitrate ?? 0),
                    sequence: sequence,
                    title: string(0), artist: string(1), raw_title: string(2), station: string(3),
                    genre: string(4), codec: string(5), artwork_url: string(6), stream_url: string(7)
                ))
        case let .state(state):
            return allocate(
                oton_state_info(
                    struct_size: UInt32(MemoryLayout<oton_state_info>.size),
                    state: state.state.rawValue,
                    buffering_percent: Int32(state.bufferingPercent ?? -1),
                    retry_attempt: UInt32(clamping: state.retryAttempt),
                    error_kind: string(0), error_message: string(1), error_suggestion: string(2)
                ))
        case let .volume(volume):
            return allocate(
                oton_volume_info(
                    struct_size: UInt32(MemoryLayout<oton_volume_info>.size), reserved: 0, volume: volume
                ))
        case let .dropped(drop):
            return allocate(
                oton_drop_info(
                    struct_size: UInt32(MemoryLayout<oton_drop_info>.size),
                    media_tap: drop.mediaTap, plugin_id: string(0),
                    dropped_events: drop.droppedEvents, dropped_bytes: drop.droppedBytes
                ))
        }
    }
}
