/// Turns the stream tap's buffers into units (MPEG/ADTS frames, Ogg pages) once, for every
/// consumer of one recording: the track splitter and the archive. It owns the reading facts —
/// which container the caps name, bytes held until the host's typefinder has decided, where one
/// connection ends and the next begins, and what lost data throws away. Pure logic.
public struct StreamUnitReader {
    /// What happened before this buffer's units: the units before and after never belong together.
    public enum Gap: Equatable, Sendable {
        /// A new connection (or a new stream format): the framer starts afresh.
        case newConnection
        /// The caps or format changed within a connection: the framer starts afresh.
        case formatChanged
        /// Bytes were lost within the connection (the host's mailbox dropped some).
        case lostData
    }

    /// What one buffer gave.
    public struct Reading: Sendable {
        public var gap: Gap?
        /// The units completed by this buffer, each with its offset in the connection's stream.
        public var units: [(unit: StreamUnit, offset: UInt64)] = []
        /// Bytes thrown away (an incomplete unit before a gap).
        public var discardedBytes = 0
        /// Ogg comment headers over the host's bound that this buffer replaced by empty ones (`OggHeaderBound`).
        public var replacedComments = 0
        /// After a `.formatChanged` gap found in the bytes (``FormatSwitch``): the container before it.
        public var switchedFrom: StreamContainer?
        /// The caps of `units`.
        public var container: StreamContainer
        public var caps: String
        public var connection: UInt64
    }

    public private(set) var container: StreamContainer = .unknown
    public private(set) var caps = ""
    public private(set) var connection: UInt64 = 0
    /// What the host's tap says the stream is; `container` and `caps` differ from it after a change of codec
    /// within the connection, until the tap says something new.
    private var tapCaps = ""
    /// Bytes dropped because their type is not audio (see ``carriesAudio``).
    public private(set) var nonAudioBytes: UInt64 = 0
    private var framer: any StreamFramer = RawFramer()
    /// Bytes of the current connection handed to the framer before the pending ones.
    private var framedOffset: UInt64 = 0
    /// Bytes received before the stream's type was known.
    private var held: [UInt8] = []
    private var heldOffset: UInt64 = 0
    /// What the host's stream tap says until its typefinder has decided.
    public static let unknownCaps = "application/octet-stream"
    static let maxHeldBytes = 1 << 20

    public init() {}

    /// What one buffer gave: its reading, then one more for each change of codec found inside it
    /// (``FormatSwitch``; each begins with a `.formatChanged` gap). Hand them on in this order.
    public mutating func readings(_ buffer: TrackSplitter.Buffer) -> [Reading] {
        var all = [read(buffer)]
        // A few per buffer at most: what is left after that is framed as the last one found.
        while all.count < 8, let next = framer.switchedTo {
            let rest = framer.flush()
            container = next
            caps = FormatSwitch.caps(next)
            framer = container.makeFramer(caps: caps)
            var reading = Reading(gap: .formatChanged, container: container, caps: caps, connection: connection)
            reading.switchedFrom = all.last?.container
            reading.units = frame(rest, from: framedOffset - UInt64(rest.count), replaced: &reading.replacedComments)
            all.append(reading)
        }
        return all
    }

    /// One buffer's reading, without what follows a change of codec inside it (``readings(_:)`` has that).
    public mutating func read(_ buffer: TrackSplitter.Buffer) -> Reading {
        let sameConnection = !buffer.newConnection && buffer.connection == connection && !buffer.discontinuity
        if sameConnection && tapCaps == Self.unknownCaps && buffer.caps != tapCaps && !held.isEmpty {
            // The type was found after the first bytes: frame them with what they turned out to be.
            container = StreamContainer(caps: buffer.caps)
            caps = buffer.caps
            tapCaps = buffer.caps
            framer = container.makeFramer(caps: caps)
            var reading = Reading(container: container, caps: caps, connection: connection)
            framedOffset = buffer.offset + UInt64(buffer.bytes.count)
            let bytes = held + buffer.bytes
            held = []
            reading.units = frame(bytes, from: heldOffset, replaced: &reading.replacedComments)
            return reading
        }
        var gap: Gap?
        var discarded = 0
        if !sameConnection || buffer.formatChanged || buffer.caps != tapCaps {
            if buffer.caps != tapCaps || !sameConnection {
                container = StreamContainer(caps: buffer.caps)
                caps = buffer.caps
                tapCaps = buffer.caps
            }
            if buffer.newConnection || buffer.connection != connection || buffer.formatChanged || buffer.caps != tapCaps {
                discarded = framer.flush().count
                framer = container.makeFramer(caps: caps)
                gap = buffer.newConnection || buffer.connection != connection ? .newConnection : .formatChanged
            } else {
                discarded = framer.flush().count  // lost data: never glue the bytes before the gap to those after it
                gap = .lostData
            }
            discarded += held.count
            held = []
            connection = buffer.connection
            framedOffset = buffer.offset
        }
        var reading = Reading(gap: gap, discardedBytes: discarded, container: container, caps: caps, connection: connection)
        if tapCaps == Self.unknownCaps && held.count + buffer.bytes.count <= Self.maxHeldBytes {
            // Not typed yet (the host's typefinder is still looking): wait for the caps.
            if held.isEmpty { heldOffset = buffer.offset }
            held += buffer.bytes
            framedOffset = buffer.offset + UInt64(buffer.bytes.count)
            return reading
        }
        let position = held.isEmpty ? framedOffset : heldOffset
        framedOffset = buffer.offset + UInt64(buffer.bytes.count)
        let bytes = held + buffer.bytes
        held = []
        reading.units = frame(bytes, from: position, replaced: &reading.replacedComments)
        return reading
    }

    /// The recording ends: what is held or half-framed is not a unit.
    public mutating func finish() {
        held = []
    }

    /// Whether the bytes of the current caps may be written at all: a container oton frames, or
    /// any other `audio/…` type (raw chunks). Text, images, HTML, a typefinder that never decided
    /// (`application/octet-stream` past ``maxHeldBytes``): not audio, never copied into a recording
    /// (a local file named by a list, issue 39 N7).
    public var carriesAudio: Bool { container != .unknown || caps.lowercased().hasPrefix("audio/") }

    private mutating func frame(_ bytes: [UInt8], from start: UInt64, replaced: inout Int) -> [(unit: StreamUnit, offset: UInt64)] {
        guard carriesAudio else {
            nonAudioBytes += UInt64(bytes.count)
            return []
        }
        var position = start
        let before = (framer as? OggPageFramer)?.replacedComments ?? 0
        defer { replaced = ((framer as? OggPageFramer)?.replacedComments ?? 0) - before }
        return framer.push(bytes).compactMap { unit in
            defer { position += UInt64(unit.receivedLength) }
            return unit.bytes.isEmpty ? nil : (unit, position)  // a frame left out (an MP3 stream's Xing frame)
        }
    }
}
