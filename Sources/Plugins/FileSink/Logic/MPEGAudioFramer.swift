import OtonStreamFraming

/// Splits MPEG-1/2/2.5 audio (layers I–III) and AAC ADTS into frames. A frame
/// is accepted when the header is valid and, while searching for sync, the
/// header right after it is valid too (so sync words inside audio data are not
/// taken for frames). Bytes that are not frames are skipped.
public struct MPEGAudioFramer: StreamFramer {
    private var pending: [UInt8] = []
    private var start = 0
    private var synced = false
    /// Bytes skipped while searching for a frame header (garbage, stray tags).
    public private(set) var skippedBytes = 0
    public private(set) var switchedTo: StreamContainer?

    public init() {}

    public mutating func push(_ bytes: [UInt8]) -> [StreamUnit] {
        pending.append(contentsOf: bytes)
        var units: [StreamUnit] = []
        while pending.count - start >= 7, switchedTo == nil {
            guard let header = MPEGFrameHeader(pending, at: start) else {
                switch FormatSwitch.at(pending, start, from: .mpegAudio) {
                case let .to(container):
                    switchedTo = container
                    continue
                case .wait:
                    return units
                case .no:
                    break
                }
                synced = false
                start += 1
                skippedBytes += 1
                continue
            }
            let end = start + header.length
            if !synced {
                // Confirm with the next header before trusting a sync word.
                guard pending.count >= end + 7 else { break }
                guard let next = MPEGFrameHeader(pending, at: end), next.isADTS == header.isADTS else {
                    start += 1
                    skippedBytes += 1
                    continue
                }
                synced = true
            }
            guard pending.count >= end else { break }
            if header.isStreamSummary(pending, at: start) {
                // A Xing/Info/VBRI frame counts the frames and bytes of the whole stream (a file served as a
                // stream): kept, it made a 7.9 s recording read as 100 s (issue 39 §3). It holds no audio.
                var unit = StreamUnit(bytes: [])
                unit.streamLength = header.length
                units.append(unit)
            } else {
                units.append(StreamUnit(bytes: Array(pending[start..<end]), durationNanoseconds: header.durationNanoseconds))
            }
            start = end
        }
        compact()
        return units
    }

    public mutating func flush() -> [UInt8] {
        defer { pending = []; start = 0; synced = false }
        return Array(pending[start...])
    }

    private mutating func compact() {
        if start > 0 && switchedTo == nil && (start >= 65536 || start == pending.count) {
            pending.removeFirst(start)
            start = 0
        }
    }
}

/// The Xing frame of a recorded VBR MP3 file: the stream's own was left out, as it counted the whole
/// stream's frames; without one a player estimates a VBR file's length from its first frames' bitrate
/// (ffprobe read 7.75 s for 8.0 s). A CBR file gets none: its length follows from its size.
public struct XingFrame {
    private var framer = MPEGAudioFramer()
    private var frames = 0
    private var bytes = 0
    private var bitrates = Set<Int>()
    private var first: [UInt8]?

    public init() {}

    /// The file's bytes, in order, in any pieces.
    public mutating func count(_ chunk: [UInt8]) {
        for unit in framer.push(chunk) {
            guard let header = MPEGFrameHeader(unit.bytes + [0, 0, 0], at: 0), !header.isADTS else { continue }
            frames += 1
            bytes += unit.bytes.count
            bitrates.insert(header.bitrate)
            if first == nil { first = Array(unit.bytes.prefix(4)) }
        }
    }

    /// The frame to put before the file's first, or nil for a CBR file (or one that is not MPEG audio layer III).
    public func frame() -> [UInt8]? {
        guard bitrates.count > 1, let first, frames > 0 else { return nil }
        var header = first
        header[1] |= 0x01  // no CRC after the header
        header[2] &= 0x0D  // no padding; the bitrate index is chosen below
        let version = (header[1] >> 3) & 3
        let mono = header[3] >> 6 == 3
        let sideInformation = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        let needed = 4 + sideInformation + 16
        for index in 1...14 {
            header[2] = header[2] & 0x0F | UInt8(index << 4)
            guard let parsed = MPEGFrameHeader(header + [0, 0, 0], at: 0), parsed.codec.hasSuffix("layer III") else { return nil }
            guard parsed.length >= needed else { continue }
            var frame = header + [UInt8](repeating: 0, count: parsed.length - 4)
            func put(_ value: Int, at offset: Int) {
                for byte in 0..<4 { frame[offset + byte] = UInt8((value >> (8 * (3 - byte))) & 0xFF) }
            }
            let at = 4 + sideInformation
            frame.replaceSubrange(at..<at + 4, with: Array("Xing".utf8))
            put(0x03, at: at + 4)  // frames and bytes follow
            put(frames, at: at + 8)
            put(bytes + parsed.length, at: at + 12)
            return frame
        }
        return nil
    }
}
