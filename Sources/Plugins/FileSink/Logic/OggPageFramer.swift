import OtonStreamFraming

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
                break  // the segment table is still on its way
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
            let bytes = Array(pending[start..<start + page.length])
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
            if streams.count >= 16 { streams.removeAll() }  // a chained stream has one at a time
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

    /// The codecs whose identification header the file sink reads (one owner: ``OggCodec``).
    public typealias Codec = OggCodec

    /// The codec a BOS page's body (its identification header) names, nil when unknown.
    public static func codec(_ body: ArraySlice<UInt8>) -> Codec? { OggCodec(identification: body) }

    /// The granule rate (units per second) from a BOS page body, 0 when the codec is unknown.
    static func sampleRate(_ body: [UInt8]) -> Int64 { OggCodec.granuleRate(body[...]) }

}
