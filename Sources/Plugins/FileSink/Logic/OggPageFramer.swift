/// Splits an Ogg stream into pages. Marks the page that begins a logical
/// stream (BOS) and the codec header pages that follow it, and computes each
/// audio page's duration from its granule position and the codec's sample
/// rate (Vorbis, Opus and FLAC identification headers are read). Comment headers are kept
/// within the host's bound on the way (``OggHeaderBound``).
public struct OggPageFramer: StreamFramer {
    private var pending: [UInt8] = []
    private var bound = OggHeaderBound()
    /// Comment headers over the bound replaced by empty ones so far.
    public var replacedComments: Int { bound.replacedComments }
    private var start = 0
    private var streams: [UInt32: LogicalStream] = [:]
    public private(set) var skippedBytes = 0
    public private(set) var switchedTo: StreamContainer?

    private struct LogicalStream {
        var sampleRate: Int64 = 0
        var lastGranule: Int64 = -1
        var inHeaders = true
        /// Granule of the first audio page after the headers, until the second page tells how long a page is.
        var firstAudioGranule: Int64?
        /// Past the headers, no audio page with a granule yet: a page that ends no packet carries granule -1,
        /// and the first one that has a granule may still be far into a stream joined late.
        var awaitingFirstGranule = false
    }

    public init() {}

    public mutating func push(_ bytes: [UInt8]) -> [StreamUnit] {
        pending.append(contentsOf: bytes)
        var units: [StreamUnit] = []
        while pending.count - start >= 27, switchedTo == nil {
            if OggPage.startsWithCapture(pending, at: start) && pending.count - start < 27 + Int(pending[start + 26]) {
                break // the segment table is still on its way
            }
            guard let page = OggPage(pending, at: start) else {
                let other = FormatSwitch.at(pending, start, from: .ogg)
                if case let .to(container) = other { switchedTo = container }
                if other != .no { break }
                start += 1
                skippedBytes += 1
                continue
            }
            guard pending.count - start >= page.length else { break }
            let bytes = Array(pending[start ..< start + page.length])
            start += page.length
            for passed in bound.pass(bytes, page) {
                var unit = unit(for: passed.page, bytes: passed.bytes, isHeader: passed.isHeader)
                if passed.sourceLength != passed.bytes.count { unit.streamLength = passed.sourceLength }
                units.append(unit)
            }
        }
        if start > 0 && switchedTo == nil && (start >= 65536 || start == pending.count) {
            pending.removeFirst(start)
            start = 0
        }
        return units
    }

    public mutating func flush() -> [UInt8] {
        defer { pending = []; start = 0 }
        return Array(pending[start...])
    }

    /// `isHeader`: what the header bound knows (by counting header packets), nil when it does not.
    private mutating func unit(for page: OggPage, bytes: [UInt8], isHeader: Bool?) -> StreamUnit {
        if page.isBOS {
            if streams.count >= 16 { streams.removeAll() } // a chained stream has one at a time
            var stream = LogicalStream()
            let body = Array(bytes[page.headerLength...])
            stream.sampleRate = Self.sampleRate(body)
            streams[page.serial] = stream
        }
        guard var stream = streams[page.serial] else {
            // Joined in the middle of a logical stream: count no duration until a granule is seen.
            var unknown = LogicalStream()
            unknown.inHeaders = false
            unknown.lastGranule = page.granule
            streams[page.serial] = unknown
            return StreamUnit(bytes: bytes)
        }
        defer { streams[page.serial] = stream }
        if stream.inHeaders && (isHeader ?? (page.granule == 0)) {
            stream.lastGranule = 0
            return StreamUnit(bytes: bytes, beginsLogicalStream: page.isBOS, isCodecHeader: true)
        }
        if stream.inHeaders { stream.awaitingFirstGranule = true }
        stream.inHeaders = false
        var duration: Int64 = 0
        if page.granule >= 0 {
            if stream.awaitingFirstGranule {
                stream.awaitingFirstGranule = false
                // Its granule is its length only if the stream starts here; Icecast also sends a logical
                // stream's headers to a listener who joins late, followed by audio from far into it.
                // Decided with the next page: the first one is taken to be at most as long as the second.
                stream.firstAudioGranule = page.granule
            } else if stream.lastGranule >= 0 && stream.sampleRate > 0 && page.granule > stream.lastGranule {
                let step = page.granule - stream.lastGranule
                let first = stream.firstAudioGranule.map { min($0, step) } ?? 0
                stream.firstAudioGranule = nil
                duration = (step + first) * 1_000_000_000 / stream.sampleRate
            }
            stream.lastGranule = page.granule
        }
        return StreamUnit(bytes: bytes, durationNanoseconds: duration)
    }

    /// The codecs whose identification header the file sink reads.
    public enum Codec: String, Sendable {
        case vorbis, opus, flac

        /// The stream tap's caps for an Ogg stream of this codec (as the light engine names it).
        public var caps: String { "audio/ogg, codec=(string)\(rawValue)" }
    }

    /// The codec a BOS page's body (its identification header) names, nil when unknown.
    public static func codec(_ body: ArraySlice<UInt8>) -> Codec? {
        if body.count >= 16, body.first == 1, body.dropFirst().starts(with: "vorbis".utf8) { return .vorbis }
        if body.starts(with: "OpusHead".utf8) { return .opus }
        if body.count >= 13, body.first == 0x7F, body.dropFirst().starts(with: "FLAC".utf8) { return .flac }
        return nil
    }

    /// The granule rate (units per second) from a BOS page body, 0 when the codec is unknown.
    static func sampleRate(_ body: [UInt8]) -> Int64 {
        func le32(_ at: Int) -> Int64 {
            guard at + 4 <= body.count else { return 0 }
            return Int64(body[at]) | Int64(body[at + 1]) << 8 | Int64(body[at + 2]) << 16 | Int64(body[at + 3]) << 24
        }
        switch codec(body[...]) {
        case .vorbis: return le32(12)
        case .opus: return 48000 // granules count 48 kHz samples whatever the input rate
        case .flac: return body.count >= 30 ? (Int64(body[27]) << 12 | Int64(body[28]) << 4 | Int64(body[29]) >> 4) : 0
        case nil: return 0
        }
    }
}

/// A parsed Ogg page header (RFC 3533).
public struct OggPage: Equatable, Sendable {
    public var headerType: UInt8
    public var granule: Int64
    public var serial: UInt32
    public var sequence: UInt32
    public var headerLength: Int
    public var length: Int

    public var isBOS: Bool { headerType & 0x02 != 0 }
    public var isEOS: Bool { headerType & 0x04 != 0 }
    public var isContinuation: Bool { headerType & 0x01 != 0 }

    static func startsWithCapture(_ bytes: [UInt8], at index: Int) -> Bool {
        index + 27 <= bytes.count && bytes[index] == 0x4F && bytes[index + 1] == 0x67 && bytes[index + 2] == 0x67
            && bytes[index + 3] == 0x53 && bytes[index + 4] == 0
    }

    /// Parses the page header at `index` (the segment table must be present), or nil.
    public init?(_ bytes: [UInt8], at index: Int) {
        guard index + 27 <= bytes.count, bytes[index] == 0x4F, bytes[index + 1] == 0x67, bytes[index + 2] == 0x67,
              bytes[index + 3] == 0x53, bytes[index + 4] == 0 else { return nil }
        func le(_ at: Int, _ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for byte in 0 ..< count { value |= UInt64(bytes[index + at + byte]) << (8 * UInt64(byte)) }
            return value
        }
        let segments = Int(bytes[index + 26])
        guard index + 27 + segments <= bytes.count else { return nil }
        headerType = bytes[index + 5]
        granule = Int64(bitPattern: le(6, 8))
        serial = UInt32(le(14, 4))
        sequence = UInt32(le(18, 4))
        headerLength = 27 + segments
        var bodyLength = 0
        for segment in 0 ..< segments { bodyLength += Int(bytes[index + 27 + segment]) }
        length = headerLength + bodyLength
    }
}
