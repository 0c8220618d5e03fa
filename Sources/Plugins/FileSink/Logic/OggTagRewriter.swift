import OtonStreamFraming

/// Rewrites a recorded Ogg file page by page so that it carries its track's
/// tags and plays from time 0: the comment header of its (first) logical
/// stream gets TITLE, ARTIST, ALBUM and COMMENT; the header pages are laid
/// out again, the pages after them numbered on without a hole, and when the file was cut in
/// the middle of a logical stream the granule positions are moved back by
/// where the cut was (otherwise players show the stream's whole running time
/// as the file's length). Vorbis, Opus and FLAC; anything else passes unchanged, as
/// does every logical stream after the first (a `--no-split` file).
public struct OggTagRewriter {
    private enum Phase {
        case headers
        case audio
        case passThrough
    }

    /// Nil (`--no-tags`): the comment header stays as recorded; the granules are still moved and the end trimmed.
    private let tags: TrackTags?
    /// Granule position at the cut (the end of the page before the file's first audio page);
    /// nil: estimated from the first two audio pages.
    private var granuleBase: Int64?
    private var phase = Phase.headers
    private var pending: [UInt8] = []
    private var serial: UInt32?
    private var headerPages: [[UInt8]] = []
    private var packets: [[UInt8]] = []
    private var partial: [UInt8] = []
    /// Audio pages are numbered on from the header pages: a file cut in the middle of a logical stream
    /// would otherwise jump from its repeated headers (0, 1, 2) to the stream's page 4711, which decoders take for lost data.
    private var nextSequence: UInt32 = 0
    /// The first audio page waits for the second when the base must be estimated.
    private var heldAudioPage: (bytes: [UInt8], page: OggPage)?
    /// `--duration` ended the file inside its last page: how much of it to keep (nil: all).
    private let keepNanoseconds: Int64?
    /// The granule (from the file's start) the last page is cut back to: its end is trimmed, as the Ogg
    /// mappings allow on a stream's last page, so the file lasts the duration asked for to the sample.
    private var granuleLimit: Int64?

    public init(tags: TrackTags?, granuleBase: Int64?, keepNanoseconds: Int64? = nil) {
        self.tags = tags
        self.granuleBase = granuleBase
        self.keepNanoseconds = keepNanoseconds
    }

    /// Bytes of the recorded file, in order, in any pieces; returns the bytes of the new file so far.
    public mutating func push(_ bytes: [UInt8]) -> [UInt8] {
        pending += bytes
        var output: [UInt8] = []
        var start = 0
        while let page = OggPage(pending, at: start), pending.count - start >= page.length {
            output += process(Array(pending[start..<start + page.length]), page)
            start += page.length
        }
        if OggPage(pending, at: start) == nil && pending.count - start >= 27 + 255 {
            // Not a page (cannot happen in a file the recorder wrote): keep the rest as it is.
            phase = .passThrough
            output += Array(pending[start...])
            start = pending.count
        }
        pending.removeFirst(start)
        return output
    }

    /// The end of the file: whatever is held goes out unchanged.
    public mutating func finish() -> [UInt8] {
        var output: [UInt8] = []
        if phase == .headers { output += headerPages.flatMap { $0 } }
        if let held = heldAudioPage {
            granuleBase = granuleBase ?? 0
            output += audio(held.bytes, held.page)
        }
        heldAudioPage = nil
        headerPages = []
        output += pending
        pending = []
        return output
    }

    // MARK: -

    private mutating func process(_ bytes: [UInt8], _ page: OggPage) -> [UInt8] {
        switch phase {
        case .passThrough:
            return bytes
        case .headers:
            if serial == nil {
                serial = page.serial
            } else if page.serial != serial {
                phase = .passThrough  // multiplexed: leave it alone
                defer { headerPages = [] }
                return headerPages.flatMap { $0 } + bytes
            }
            headerPages.append(bytes)
            collectPackets(bytes, page)
            guard let needed = headerPacketCount else {
                phase = .passThrough
                defer { headerPages = [] }
                return headerPages.flatMap { $0 }
            }
            guard packets.count >= needed else { return [] }
            return rewriteHeaders()
        case .audio:
            guard page.serial == serial, !page.isBOS else {
                phase = .passThrough  // the next chain of a --no-split file keeps its own numbering
                var output: [UInt8] = []
                if let held = heldAudioPage {
                    granuleBase = granuleBase ?? 0
                    output += audio(held.bytes, held.page)
                    heldAudioPage = nil
                }
                return output + bytes
            }
            if granuleBase == nil {
                guard let held = heldAudioPage else {
                    heldAudioPage = (bytes, page)
                    return []
                }
                if held.page.granule >= 0 && page.granule > held.page.granule {
                    // The first page holds about as much as the second. A stream that really starts
                    // here has its first page near 0: keep it at 0 rather than trim by an estimate.
                    let step = page.granule - held.page.granule
                    granuleBase = held.page.granule > 2 * step ? held.page.granule - step : 0
                } else {
                    granuleBase = 0
                }
                heldAudioPage = nil
                return audio(held.bytes, held.page) + audio(bytes, page)
            }
            return audio(bytes, page)
        }
    }

    /// 3 for Vorbis (identification, comments, setup), 2 for Opus, for FLAC the mapping packet and the
    /// metadata blocks it counts (comments first); nil for other codecs, and for a FLAC stream that
    /// does not say how many blocks follow.
    private var headerPacketCount: Int? {
        guard let first = packets.first ?? (partial.isEmpty ? nil : partial) else { return 3 }  // not known yet
        if first.starts(with: [1] + Array("vorbis".utf8)) { return 3 }
        if first.starts(with: Array("OpusHead".utf8)) { return 2 }
        if first.count >= 9, first.starts(with: [0x7F] + Array("FLAC".utf8)) {
            let blocks = Int(first[7]) << 8 | Int(first[8])
            return blocks > 0 ? 1 + blocks : nil
        }
        return nil
    }

    private mutating func collectPackets(_ bytes: [UInt8], _ page: OggPage) {
        let segments = Int(bytes[26])
        var offset = page.headerLength
        for index in 0..<segments {
            let length = Int(bytes[27 + index])
            partial += bytes[offset..<offset + length]
            offset += length
            if length < 255 {
                packets.append(partial)
                partial = []
            }
        }
    }

    private mutating func rewriteHeaders() -> [UInt8] {
        phase = .audio
        let needed = headerPacketCount ?? 0
        guard packets.count == needed, partial.isEmpty, var comments = VorbisComments(packet: packets[1]),
            let serial, let first = headerPages.first, let firstPage = OggPage(first, at: 0), firstPage.isBOS
        else {
            // Audio shares a header page, or the comments do not parse: keep the file as it is.
            phase = .passThrough
            defer { headerPages = [] }
            return headerPages.flatMap { $0 }
        }
        // The identification header must be alone on the first page (Vorbis I §4.2, RFC 7845 §3).
        guard Int(first[26]) == 1 || (first[26] > 1 && first[27..<27 + Int(first[26]) - 1].allSatisfy { $0 == 255 }) else {
            phase = .passThrough
            defer { headerPages = [] }
            return headerPages.flatMap { $0 }
        }
        if let tags {
            comments.set("TITLE", tags.title)
            comments.set("ARTIST", tags.artist)
            comments.set("ALBUM", tags.album)
            comments.set("COMMENT", tags.comment)
            comments.set(TrackTags.titleSourceKey, tags.titleSource)
        }
        if let keepNanoseconds {
            let rate = OggPageFramer.sampleRate(Array(first[firstPage.headerLength...]))
            if rate > 0 { granuleLimit = keepNanoseconds / 1_000_000_000 * rate + keepNanoseconds % 1_000_000_000 * rate / 1_000_000_000 }
        }
        let rest = [comments.packet] + packets.dropFirst(2)
        let pages = OggPageWriter.paginate(Array(rest), serial: serial, sequence: firstPage.sequence + 1, granule: 0)
        nextSequence = firstPage.sequence + 1 + UInt32(pages.count)
        defer { headerPages = [] }
        return first + pages.flatMap { $0 }
    }

    private mutating func audio(_ bytes: [UInt8], _ page: OggPage) -> [UInt8] {
        let sequence = nextSequence
        nextSequence &+= 1
        let base = granuleBase ?? 0
        var granule: Int64? = page.granule >= 0 && base > 0 ? max(0, page.granule - base) : nil
        var bytes = bytes
        if let limit = granuleLimit, page.granule >= 0, (granule ?? page.granule) > limit {
            granule = limit
            bytes[5] |= 0x04  // end of stream: only the last page may trim its end
        }
        guard sequence != page.sequence || granule != nil else { return bytes }
        return OggPageWriter.rewritten(bytes, sequence: sequence, granule: granule)
    }
}
