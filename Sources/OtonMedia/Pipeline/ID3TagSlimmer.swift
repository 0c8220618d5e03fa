/// Bounds the ID3v2 tag at the head of an HLS packed-audio segment before GStreamer's HLS
/// demuxer reads it (issue 27.4).
///
/// hlsdemux holds a segment's whole ID3 tag in memory to parse it, and its source queue holds up
/// to 20 MB more: a station that put a 30 MB picture or private frame in every segment made a
/// player (oton, and gst-launch's playbin alike) grow by hundreds of megabytes. The slimmer sits on
/// the bytes of each segment download as they arrive and rewrites the tag: frames up to
/// ``maxFrameBytes`` are kept (the PRIV timestamp, the titles, a normal cover), bigger ones are
/// skipped as they stream past, and the kept frames stop at ``maxKeptBytes``. So what it holds is
/// bounded by ``maxKeptBytes`` whatever the tag declares, and the demuxer sees a small valid tag.
///
/// A segment that does not start with an ID3v2.3/2.4 tag (MPEG-TS, fMP4), or whose tag it cannot
/// rewrite safely (v2.2, unsynchronised, extended header), passes unchanged; such a tag larger
/// than ``maxKeptBytes`` is dropped whole instead.
///
/// Pure logic, fed in arbitrary pieces; one instance per segment source (not thread-safe: the
/// caller runs it on that source's streaming thread only).
package struct ID3TagSlimmer {
    /// Largest frame kept; bigger frames are dropped.
    package static let maxFrameBytes = 256 * 1024
    /// Most bytes of frames kept from one tag.
    package static let maxKeptBytes = 1024 * 1024

    private enum State {
        /// At the start of a segment: collecting the 10-byte tag header.
        case header
        /// Collecting the next frame's 10-byte header (`remaining` tag bytes are left).
        case frameHeader
        /// Inside a kept frame's payload.
        case keeping(bytes: Int)
        /// Inside a dropped frame's payload (or a dropped tag, or padding).
        case skipping(bytes: Int)
        /// After the tag, or a segment without one.
        case passThrough
    }

    private var state = State.header
    private var pending: [UInt8] = []
    /// Tag bytes (after its header) not yet consumed.
    private var remaining = 0
    private var version: UInt8 = 4
    private var kept: [UInt8] = []

    package init() {}
    /// The 10-byte footer of a v2.4 tag that has one, still to skip.
    private var pendingFooter = 0
    /// Frames dropped from the current segment's tag (for the log and the tests).
    package private(set) var droppedFrames = 0
    package private(set) var droppedBytes = 0

    /// A new segment download begins.
    package mutating func reset() {
        state = .header
        pending = []
        kept = []
        remaining = 0
        pendingFooter = 0
    }

    /// Whether this segment's bytes now pass unchanged (nothing held).
    package var isPassingThrough: Bool {
        if case .passThrough = state { return true }
        return false
    }

    /// The bytes to hand on for `input` (possibly empty, possibly the rewritten tag and more).
    package mutating func push(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        let count = input.count
        while index < count {
            switch state {
            case .passThrough:
                output.append(contentsOf: input[index...])
                index = count
            case .header:
                let take = min(10 - pending.count, count - index)
                pending.append(contentsOf: input[index..<(index + take)])
                index += take
                guard pending.count == 10 else { continue }
                startTag(&output)
            case .frameHeader:
                if remaining < 10 {
                    // Too short for a frame: padding up to the end of the tag.
                    if remaining > 0 { state = .skipping(bytes: remaining) } else { endOfFrames(&output) }
                    continue
                }
                let take = min(10 - pending.count, count - index)
                pending.append(contentsOf: input[index..<(index + take)])
                index += take
                guard pending.count == 10 else { continue }
                startFrame()
            case let .keeping(bytes):
                let take = min(bytes, count - index)
                kept.append(contentsOf: input[index..<(index + take)])
                index += take
                advance(by: take, left: bytes - take, keeping: true, &output)
            case let .skipping(bytes):
                let take = min(bytes, count - index)
                index += take
                droppedBytes += take
                advance(by: take, left: bytes - take, keeping: false, &output)
            }
        }
        if case .frameHeader = state, remaining == 0, pending.isEmpty { endOfFrames(&output) }
        return output
    }

    private mutating func startTag(_ output: inout [UInt8]) {
        let header = pending
        pending = []
        guard header[0] == 0x49, header[1] == 0x44, header[2] == 0x33, header[6...9].allSatisfy({ $0 < 0x80 }) else {
            state = .passThrough
            output.append(contentsOf: header)
            return
        }
        let size = Self.syncsafe(header[6...9])
        let flags = header[5]
        let footer = flags & 0x10 != 0 ? 10 : 0
        version = header[3]
        guard version == 3 || version == 4, flags & 0xC0 == 0 else {
            // A tag this cannot walk frame by frame: unchanged when small, dropped when not.
            if size + footer <= Self.maxKeptBytes {
                kept = header
                remaining = size + footer
                state = .keeping(bytes: size + footer)
                version = 0
            } else {
                droppedFrames += 1
                remaining = size + footer
                state = .skipping(bytes: size + footer)
                version = 0
            }
            return
        }
        remaining = size
        pendingFooter = footer  // skipped after the frames, not written again
        kept = []
        state = .frameHeader
    }

    private mutating func startFrame() {
        let header = pending
        pending = []
        remaining -= 10
        guard header[0] != 0 else {
            // Padding: the rest of the tag.
            state = .skipping(bytes: remaining)
            if remaining == 0 { state = .frameHeader }
            return
        }
        let declared = version == 4 ? Self.syncsafe(header[4...7]) : Self.bigEndian(header[4...7])
        let size = min(declared, remaining)
        if size <= Self.maxFrameBytes, kept.count + 10 + size <= Self.maxKeptBytes {
            kept.append(contentsOf: header)
            state = .keeping(bytes: size)
        } else {
            droppedFrames += 1
            droppedBytes += 10
            state = .skipping(bytes: size)
        }
        if size == 0 { state = .frameHeader }
    }

    private mutating func advance(by taken: Int, left: Int, keeping: Bool, _ output: inout [UInt8]) {
        remaining -= taken
        if left > 0 {
            state = keeping ? .keeping(bytes: left) : .skipping(bytes: left)
            return
        }
        if version == 0 {
            finishTag(&output)
        } else if remaining <= 0 {
            endOfFrames(&output)
        } else {
            state = .frameHeader
        }
    }

    /// The frames are read: the footer (if any) is skipped, then the slim tag goes out.
    private mutating func endOfFrames(_ output: inout [UInt8]) {
        if pendingFooter > 0 {
            remaining = pendingFooter
            pendingFooter = 0
            state = .skipping(bytes: remaining)
            return
        }
        finishTag(&output)
    }

    private mutating func finishTag(_ output: inout [UInt8]) {
        state = .passThrough
        remaining = 0
        if version == 0 {
            output.append(contentsOf: kept)  // an unwalkable tag kept whole (or nothing, when dropped)
        } else if !kept.isEmpty {
            output.append(contentsOf: [0x49, 0x44, 0x33, version, 0, 0])
            output.append(contentsOf: Self.syncsafeBytes(kept.count))
            output.append(contentsOf: kept)
        }
        kept = []
    }

    private static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }

    private static func syncsafeBytes(_ value: Int) -> [UInt8] {
        [UInt8((value >> 21) & 0x7F), UInt8((value >> 14) & 0x7F), UInt8((value >> 7) & 0x7F), UInt8(value & 0x7F)]
    }
}
