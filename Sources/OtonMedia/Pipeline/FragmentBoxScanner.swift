/// Finds the `emsg` boxes among the top-level boxes of an fMP4/CMAF segment as its bytes arrive,
/// holding nothing but the box being read (issue 52: GStreamer 1.22's qtdemux skips `emsg` boxes,
/// so the timed ID3 titles of fMP4 HLS and DASH never reached oton).
///
/// Every other box (`styp`, `sidx`, `moof`, `mdat` …) is skipped by counting its bytes. A download
/// whose first box is not one an fMP4 segment starts with (MPEG-TS, packed audio, ID3, a page of
/// HTML) is let go at once: the scanner looks no further. An `emsg` larger than ``maxMessageBytes``
/// is skipped unread and reported as ``Found/oversized(bytes:)``; one whose fields do not fit in it
/// as ``Found/malformed``. What is held is bounded by ``maxMessageBytes`` whatever the segment says.
///
/// Pure logic, fed in arbitrary pieces; one instance per segment source, ``reset()`` at each download.
package struct FragmentBoxScanner {
    package static let maxMessageBytes = 256 * 1024

    package enum Found: Equatable {
        case message(EventMessage)
        case oversized(bytes: Int)
        case malformed
    }

    private enum State {
        /// Collecting a box header (8 bytes, 16 with a 64-bit size).
        case header
        /// Collecting an `emsg` payload of `bytes` bytes.
        case message(bytes: Int)
        /// Skipping `bytes` bytes of a box.
        case skipping(bytes: Int)
        /// Not fMP4, or a box that runs to the end: nothing more to find in this download.
        case done
    }

    /// The box types a segment may begin with (ISO/IEC 14496-12, 23009-1, 23000-19).
    private static let firstBoxes: Set<String> = [
        "styp", "ftyp", "sidx", "ssix", "prft", "emsg", "moof", "moov", "free", "skip", "uuid", "mdat", "pdin", "meta",
    ]

    private var state = State.header
    private var held: [UInt8] = []
    private var isFirstBox = true

    package init() {}

    /// A new download begins.
    package mutating func reset() {
        state = .header
        held = []
        isFirstBox = true
    }

    /// Whether this download is of no more interest (not fMP4, or past a box that runs to its end).
    package var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// What `input` completes.
    package mutating func push(_ input: UnsafeRawBufferPointer) -> [Found] {
        var found: [Found] = []
        var index = 0
        while index < input.count {
            switch state {
            case .done:
                return found
            case .header:
                let wanted = held.count >= 8 && Self.size32(held) == 1 ? 16 : 8
                let take = min(wanted - held.count, input.count - index)
                held.append(contentsOf: input[index..<(index + take)])
                index += take
                if held.count == 8, Self.size32(held) == 1 { continue }  // a 64-bit size follows
                if held.count == wanted { startBox(&found) }
            case let .message(bytes):
                let take = min(bytes, input.count - index)
                held.append(contentsOf: input[index..<(index + take)])
                index += take
                if take < bytes {
                    state = .message(bytes: bytes - take)
                } else {
                    found.append(EventMessage.parse(held).map(Found.message) ?? .malformed)
                    held = []
                    state = .header
                }
            case let .skipping(bytes):
                let take = min(bytes, input.count - index)
                index += take
                state = take < bytes ? .skipping(bytes: bytes - take) : .header
            }
        }
        return found
    }

    private mutating func startBox(_ found: inout [Found]) {
        let header = held
        held = []
        let type = String(decoding: header[4..<8], as: UTF8.self)
        let first = isFirstBox
        isFirstBox = false
        if first, !Self.firstBoxes.contains(type) { state = .done; return }
        let declared: UInt64 = header.count == 16 ? header[8..<16].reduce(0) { $0 << 8 | UInt64($1) } : UInt64(Self.size32(header))
        if declared == 0 { state = .done; return }  // the box runs to the end of the download
        guard declared >= UInt64(header.count), declared - UInt64(header.count) <= UInt64(Int.max / 2) else {
            if type == "emsg" { found.append(.malformed) }
            state = .done
            return
        }
        let payload = Int(declared) - header.count
        if type != "emsg" {
            state = payload > 0 ? .skipping(bytes: payload) : .header
        } else if payload > Self.maxMessageBytes {
            found.append(.oversized(bytes: Int(declared)))
            state = .skipping(bytes: payload)
        } else if payload == 0 {
            found.append(.malformed)
            state = .header
        } else {
            state = .message(bytes: payload)
        }
    }

    private static func size32(_ header: [UInt8]) -> UInt32 {
        header[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
