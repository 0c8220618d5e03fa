import PluginAPI

/// A read-only Swift view of a borrowed `oton_event`. Use it inside the
/// callback only, or keep its `snapshot`.
public struct EventView {
    public let pointer: UnsafePointer<oton_event>

    public init(_ pointer: UnsafePointer<oton_event>) {
        self.pointer = pointer
    }

    /// A copy of an event that can be kept after the callback.
    public struct Snapshot: Sendable, Equatable {
        public var kind: oton_event_kind
        public var name: String
        public var source: String
        public var flags: UInt32
        public var monotonicNanoseconds: Int64
        public var wallMicroseconds: Int64
        public var fields: [String: String]

        public subscript(key: String) -> String? { fields[key] }
    }

    public var kind: oton_event_kind { pointer.pointee.kind }
    public var name: String { pointer.pointee.kind_name.map { String(cString: $0) } ?? "" }

    /// The fields as a dictionary (a later duplicate key wins).
    public var fields: [String: String] {
        let event = pointer.pointee
        guard hasField(pointer, \oton_event.fields), let list = event.fields else { return [:] }
        var out: [String: String] = [:]
        for index in 0..<Int(event.field_count) {
            if let key = list[index].key, let value = list[index].value {
                out[String(cString: key)] = String(cString: value)
            }
        }
        return out
    }

    public var snapshot: Snapshot {
        let event = pointer.pointee
        return Snapshot(
            kind: event.kind, name: name, source: event.source.map { String(cString: $0) } ?? "",
            flags: event.flags, monotonicNanoseconds: event.mono_ns, wallMicroseconds: event.wall_us, fields: fields)
    }
}

/// Swift's version of the header's OTON_HAS_FIELD macro (which Swift cannot import):
/// true when the struct at `pointer`, whose first field is its struct_size, contains `field`.
public func hasField<T, V>(_ pointer: UnsafePointer<T>, _ field: KeyPath<T, V>) -> Bool {
    guard let offset = MemoryLayout<T>.offset(of: field) else { return false }
    let size = UnsafeRawPointer(pointer).load(as: UInt32.self)
    return Int(size) >= offset + MemoryLayout<V>.size
}

extension EventView.Snapshot {
    /// This event as a track (nil when it carries no sequence).
    public var track: TrackFields? { TrackFields(fields: fields) }
    /// This event as a playback state (nil when it carries none).
    public var state: StateFields? { StateFields(fields: fields) }
    /// This event as a volume (nil when it carries none).
    public var volume: VolumeFields? { VolumeFields(fields: fields) }
}
