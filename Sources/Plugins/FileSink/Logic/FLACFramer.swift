/// Splits a native FLAC stream (`audio/flac`, not in Ogg) into units: the stream header ("fLaC" and
/// its metadata blocks) as one codec-header unit, repeated at the start of every file, then one unit
/// per frame with its duration. A frame's length is not in its header: it ends where the next frame
/// header begins, taken only where the frame's CRC-16 (which covers the whole frame) checks out, so a
/// sync code inside the audio is never a cut. Bytes that are not a frame are skipped.
///
/// The header written to files says nothing of the stream it came from: STREAMINFO's total samples
/// and MD5 are zeroed (a recording is not the whole stream; the file sink writes the file's own total
/// when it ends, ``FLACStreamInfo``), and a SEEKTABLE or CUESHEET, which point into the stream, is left out.
public struct FLACFramer: StreamFramer {
    private var pending: [UInt8] = []
    private var start = 0
    private var headerDone = false
    private var sampleRate = 0
    /// The frame being read: where the search for its end has got to, and the CRC-16 of the bytes up to there.
    private var scan = 0
    private var crc: UInt16 = 0
    /// Bytes skipped while searching for a frame header.
    public private(set) var skippedBytes = 0
    /// A frame longer than this is not believed: the search starts again one byte on.
    static let maximumFrameBytes = 1 << 20
    /// A metadata header larger than this is not kept (covers of a few MiB are kept; 16 MiB is the format's own limit).
    static let maximumHeaderBytes = 8 << 20

    public init() {}

    public mutating func push(_ bytes: [UInt8]) -> [StreamUnit] {
        pending.append(contentsOf: bytes)
        var units: [StreamUnit] = []
        if !headerDone {
            guard let header = readHeader() else {
                compact()
                return units
            }
            units.append(header)
        }
        while let unit = nextFrame() { units.append(unit) }
        compact()
        return units
    }

    public mutating func flush() -> [UInt8] {
        defer { pending = []; start = 0; scan = 0; crc = 0 }
        return Array(pending[start...])
    }

    /// "fLaC" and the metadata blocks, once whole; nil while they are still arriving. A stream that does
    /// not start with "fLaC" (joined in its middle) has no header unit: its frames are taken at 44.1 kHz
    /// unless they name their rate.
    private mutating func readHeader() -> StreamUnit? {
        guard pending.count - start >= 4 else { return nil }
        guard pending[start..<start + 4].elementsEqual("fLaC".utf8) else {
            headerDone = true
            return nil
        }
        var at = start + 4
        var kept: [[UInt8]] = []
        while true {
            guard pending.count >= at + 4 else { return nil }
            let type = pending[at] & 0x7F, last = pending[at] & 0x80 != 0
            let length = Int(pending[at + 1]) << 16 | Int(pending[at + 2]) << 8 | Int(pending[at + 3])
            guard at + 4 + length - start <= Self.maximumHeaderBytes else {
                // Not a header oton keeps: skip the marker and look for frames.
                headerDone = true
                start += 4
                skippedBytes += 4
                return nil
            }
            guard pending.count >= at + 4 + length else { return nil }
            var block = Array(pending[at..<at + 4 + length])
            if type == 0 && length >= 34 {
                sampleRate = Int(block[14]) << 12 | Int(block[15]) << 4 | Int(block[16]) >> 4
                block[17] &= 0xF0  // total samples: unknown
                for index in 18..<22 { block[index] = 0 }
                for index in 22..<38 { block[index] = 0 }  // MD5: unknown
            }
            if type != 3 && type != 5 && type != 1 { kept.append(block) }  // no SEEKTABLE, CUESHEET, PADDING
            at += 4 + length
            if last { break }
        }
        let streamLength = at - start
        var bytes = Array("fLaC".utf8)
        for (index, block) in kept.enumerated() {
            var block = block
            block[0] = block[0] & 0x7F | (index == kept.count - 1 ? 0x80 : 0)
            bytes += block
        }
        start = at
        scan = 0
        headerDone = true
        var unit = StreamUnit(bytes: bytes, beginsLogicalStream: true, isCodecHeader: true)
        if streamLength != bytes.count { unit.streamLength = streamLength }
        return unit
    }

    private mutating func nextFrame() -> StreamUnit? {
        while true {
            guard pending.count - start >= 16 else { return nil }
            guard let header = FLACFrameHeader(pending, at: start, streamRate: sampleRate) else {
                start += 1
                skippedBytes += 1
                scan = 0
                continue
            }
            if scan == 0 {
                scan = start
                crc = 0
            }
            // The next header where the CRC-16 of everything before it (its own two bytes included) is 0.
            while scan + 16 <= pending.count {
                if scan > start + header.headerLength + 2, crc == 0, pending[scan] == 0xFF, pending[scan + 1] & 0xFE == 0xF8,
                    FLACFrameHeader(pending, at: scan, streamRate: sampleRate) != nil
                {
                    let unit = StreamUnit(bytes: Array(pending[start..<scan]), durationNanoseconds: header.durationNanoseconds)
                    start = scan
                    scan = 0
                    return unit
                }
                crc = FLACFrameHeader.crc16(crc, pending[scan])
                scan += 1
                if scan - start > Self.maximumFrameBytes { break }
            }
            if scan - start > Self.maximumFrameBytes {
                start += 1
                skippedBytes += 1
                scan = 0
                continue
            }
            return nil
        }
    }

    private mutating func compact() {
        if start > 0 && (start >= 65536 || start == pending.count) {
            pending.removeFirst(start)
            if scan > 0 { scan -= start }
            start = 0
        }
    }
}

/// A FLAC frame header (sync, block size, sample rate, the coded number and its CRC-8).
public struct FLACFrameHeader: Equatable, Sendable {
    public var blockSize: Int
    public var sampleRate: Int
    public var headerLength: Int

    public var durationNanoseconds: Int64 { sampleRate > 0 ? Int64(blockSize) * 1_000_000_000 / Int64(sampleRate) : 0 }

    /// Parses and checks (CRC-8) the header at `index`; `streamRate` is STREAMINFO's, for frames that do not say theirs.
    public init?(_ bytes: [UInt8], at index: Int, streamRate: Int) {
        guard index + 6 <= bytes.count, bytes[index] == 0xFF, bytes[index + 1] & 0xFE == 0xF8 else { return nil }
        let sizeCode = Int(bytes[index + 2] >> 4), rateCode = Int(bytes[index + 2] & 0x0F)
        guard sizeCode != 0, rateCode != 15, bytes[index + 3] & 0x01 == 0, bytes[index + 3] >> 4 < 11,
            (bytes[index + 3] >> 1) & 0x07 != 3, (bytes[index + 3] >> 1) & 0x07 != 7
        else { return nil }
        var at = index + 4
        // The frame or sample number, coded like UTF-8 (up to 7 bytes).
        let lead = bytes[at]
        let extra: Int
        switch lead {
        case 0x00..<0x80: extra = 0
        case 0xC0..<0xE0: extra = 1
        case 0xE0..<0xF0: extra = 2
        case 0xF0..<0xF8: extra = 3
        case 0xF8..<0xFC: extra = 4
        case 0xFC..<0xFE: extra = 5
        case 0xFE: extra = 6
        default: return nil
        }
        guard at + 1 + extra + 5 <= bytes.count else { return nil }
        if extra > 0 {
            for next in 1...extra { guard bytes[at + next] & 0xC0 == 0x80 else { return nil } }
        }
        at += 1 + extra
        switch sizeCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << (sizeCode - 2)
        case 6: blockSize = Int(bytes[at]) + 1; at += 1
        case 7: blockSize = (Int(bytes[at]) << 8 | Int(bytes[at + 1])) + 1; at += 2
        default: blockSize = 256 << (sizeCode - 8)
        }
        let rates = [0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000]
        switch rateCode {
        case 0: sampleRate = streamRate > 0 ? streamRate : 44100
        case 12: sampleRate = Int(bytes[at]) * 1000; at += 1
        case 13: sampleRate = Int(bytes[at]) << 8 | Int(bytes[at + 1]); at += 2
        case 14: sampleRate = (Int(bytes[at]) << 8 | Int(bytes[at + 1])) * 10; at += 2
        default: sampleRate = rates[rateCode]
        }
        guard at < bytes.count, sampleRate > 0 else { return nil }
        var crc: UInt8 = 0
        for byte in bytes[index..<at] { crc = Self.crc8(crc, byte) }
        guard crc == bytes[at] else { return nil }
        headerLength = at + 1 - index
    }

    static func crc8(_ crc: UInt8, _ byte: UInt8) -> UInt8 {
        var value = crc ^ byte
        for _ in 0..<8 { value = value & 0x80 != 0 ? (value << 1) ^ 0x07 : value << 1 }
        return value
    }

    private static let crc16Table: [UInt16] = (0..<256).map { index in
        var value = UInt16(index) << 8
        for _ in 0..<8 { value = value & 0x8000 != 0 ? (value << 1) ^ 0x8005 : value << 1 }
        return value
    }

    static func crc16(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        (crc << 8) ^ crc16Table[Int(UInt8(crc >> 8) ^ byte)]
    }
}

/// The STREAMINFO of a FLAC file the file sink wrote: where its total samples go once the file ends.
public enum FLACStreamInfo {
    /// The 8 bytes from offset 18 (sample rate … total samples) with `samples` as the total, or nil
    /// when `head` (the file's first 42 bytes) is not a FLAC header whose first block is STREAMINFO.
    public static func totalSamplesPatch(head: [UInt8], durationNanoseconds: Int64) -> (offset: Int, bytes: [UInt8], samples: Int64)? {
        guard head.count >= 42, head[0..<4].elementsEqual("fLaC".utf8), head[4] & 0x7F == 0 else { return nil }
        let rate = Int64(head[18]) << 12 | Int64(head[19]) << 4 | Int64(head[20]) >> 4
        guard rate > 0 else { return nil }
        let whole = durationNanoseconds / 1_000_000_000, part = durationNanoseconds % 1_000_000_000
        let samples = min(whole * rate + (part * rate + 500_000_000) / 1_000_000_000, (1 << 36) - 1)
        var bytes = Array(head[18..<26])
        bytes[3] = bytes[3] & 0xF0 | UInt8((samples >> 32) & 0x0F)
        bytes[4] = UInt8((samples >> 24) & 0xFF)
        bytes[5] = UInt8((samples >> 16) & 0xFF)
        bytes[6] = UInt8((samples >> 8) & 0xFF)
        bytes[7] = UInt8(samples & 0xFF)
        return (18, bytes, samples)
    }
}
