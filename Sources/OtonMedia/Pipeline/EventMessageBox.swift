/// One DASH event message (`emsg` box, ISO/IEC 23009-1 §5.10.3.3) read from an fMP4/CMAF segment.
///
/// Versions 0 and 1 differ in the order of the fields and in time: version 0 gives the presentation
/// time as a delta from the segment's earliest presentation time, version 1 as a time on the track's
/// media timeline. Both are kept as read; ``presentationTime`` says which one it is.
package struct EventMessage: Equatable, Sendable {
    package enum Time: Equatable, Sendable {
        /// Version 0: ticks after the start of the segment that carries the box.
        case delta(UInt32)
        /// Version 1: ticks on the media timeline.
        case absolute(UInt64)
    }

    package let scheme: String
    package let value: String
    package let timescale: UInt32
    package let presentationTime: Time
    /// Ticks; 0xFFFFFFFF is "unknown".
    package let duration: UInt32
    package let id: UInt32
    package let data: [UInt8]

    /// The schemes whose message data is an ID3v2 tag: AOM's (CMAF, ISO/IEC 23000-19) and Apple's
    /// (timed metadata in fMP4 HLS).
    package static let id3Schemes: Set<String> = ["https://aomedia.org/emsg/ID3", "https://developer.apple.com/streaming/emsg-id3"]

    package var carriesID3: Bool { Self.id3Schemes.contains(scheme) }

    /// Reads the payload of an `emsg` box (what follows its 8-byte box header), or nil when it is not
    /// a version 0 or 1 box whose fields all fit inside it (a string without its NUL, too few bytes).
    package static func parse<Bytes: RandomAccessCollection>(_ payload: Bytes) -> EventMessage? where Bytes.Element == UInt8, Bytes.Index == Int {
        var reader = Reader(bytes: payload, index: payload.startIndex)
        guard let version = reader.byte(), reader.skip(3) else { return nil }
        switch version {
        case 0:
            guard let scheme = reader.string(), let value = reader.string(), let timescale = reader.u32(), let delta = reader.u32(),
                let duration = reader.u32(), let id = reader.u32()
            else { return nil }
            return EventMessage(
                scheme: scheme, value: value, timescale: timescale, presentationTime: .delta(delta), duration: duration, id: id, data: reader.rest())
        case 1:
            guard let timescale = reader.u32(), let high = reader.u32(), let low = reader.u32(), let duration = reader.u32(), let id = reader.u32(),
                let scheme = reader.string(), let value = reader.string()
            else { return nil }
            return EventMessage(
                scheme: scheme, value: value, timescale: timescale, presentationTime: .absolute(UInt64(high) << 32 | UInt64(low)),
                duration: duration, id: id, data: reader.rest())
        default:
            return nil
        }
    }

    /// A cursor that never reads past the end of `bytes`.
    private struct Reader<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
        let bytes: Bytes
        var index: Int

        mutating func byte() -> UInt8? {
            guard index < bytes.endIndex else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func skip(_ count: Int) -> Bool {
            guard bytes.endIndex - index >= count else { return false }
            index += count
            return true
        }

        mutating func u32() -> UInt32? {
            guard bytes.endIndex - index >= 4 else { return nil }
            defer { index += 4 }
            return bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }

        /// A NUL-terminated UTF-8 string (at most 1 KiB: a URI or a value, not a message).
        mutating func string() -> String? {
            let limit = min(bytes.endIndex, index + 1024)
            guard let end = bytes[index..<limit].firstIndex(of: 0) else { return nil }
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }

        func rest() -> [UInt8] { Array(bytes[index...]) }
    }
}
