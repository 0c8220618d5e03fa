import OtonStreamFraming
import PluginAPI

/// The header pages of each Ogg chain a timeshift ring receives (docs/timeshift.md), so playback
/// can start in the middle of a chain: an Ogg decoder needs its chain's headers (Vorbis: three
/// packets, Opus: two, FLAC: its metadata blocks) before any audio page, and in a ring they lie
/// behind the place a seek lands. Playback from such a place is sent the headers first, then the
/// chain's pages from the next page boundary — what Icecast itself sends a listener who joins.
///
/// Native FLAC is the same story with one chain: its stream header ("fLaC" and the metadata blocks)
/// comes first, and playback from later is sent it, then the bytes from there (the parser finds
/// the next frame).
///
/// Watched only for a connection whose first bytes are an Ogg page or a FLAC stream header; MP3
/// and AAC cost nothing.
/// A chain's headers are the pages from its first (BOS) page up to its first page that ends an
/// audio packet (granule position neither 0 nor −1).
///
/// Pure and bounded: a partial page is held up to a page's largest size, a chain's headers up to
/// ``maxChainBytes`` (a comment header bounded as the light engine bounds it, plus the rest; a
/// chain with more is left without, and a seek into it plays as before), all chains' headers up to
/// ``maxTotalBytes`` (the oldest dropped first) and ``prune(before:)`` drops those the ring no
/// longer holds.
package struct TimeshiftOggHeaders: Sendable {
    package struct Chain: Equatable, Sendable {
        /// The ring offset of its first page.
        package var start: UInt64
        /// The ring offset of its first page after the headers (nil: still reading them).
        package var headersEnd: UInt64?
        /// Its header pages as received (empty when they were more than ``maxChainBytes``).
        package var headers: [UInt8]
        package var serial: UInt32
        package var tooLarge = false
        /// Native FLAC's one "chain": playback starts at the offset asked, its parser finds the next frame.
        package var isFLAC = false
    }

    /// Where playback asked for at an offset starts, and what is sent before it.
    package struct Start: Equatable, Sendable {
        package var offset: UInt64
        package var prefix: [UInt8]

        package init(offset: UInt64, prefix: [UInt8]) {
            self.offset = offset
            self.prefix = prefix
        }
    }

    package static let maxChainBytes = Int(OTON_OGG_COMMENT_MAX_BYTES) + 64 * 1024
    package static let maxTotalBytes = 8 * 1024 * 1024
    /// The largest Ogg page: a 27-byte header, 255 lacing values, 255 × 255 bytes of body.
    package static let maxPageBytes = 27 + 255 + 255 * 255

    package private(set) var chains: [Chain] = []
    private enum Watching { case ogg, flacHeader, nothing }
    /// nil until a connection's first bytes say whether it is Ogg or native FLAC.
    private var watching: Watching?
    private var pending: [UInt8] = []
    private var pendingStart: UInt64 = 0
    private var totalBytes = 0

    package init() {}

    /// A new connection starts at the next byte: what it sends decides whether it is watched.
    package mutating func connectionStarted() {
        watching = nil
        pending = []
        if let last = chains.indices.last, chains[last].headersEnd == nil { chains[last].headersEnd = chains[last].start }
    }

    /// Bytes the ring received at `offset` (the ring's head before them).
    package mutating func received(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) {
        if watching == nil {
            guard bytes.count > 0 else { return }
            watching = bytes.starts(with: Array("fLaC".utf8)) ? .flacHeader : bytes.starts(with: Array("OggS".utf8)) ? .ogg : .nothing
            pendingStart = offset
        }
        guard let watching, watching != .nothing else { return }
        if pending.isEmpty { pendingStart = offset }
        pending.append(contentsOf: bytes)
        if watching == .flacHeader { return flacHeaderReceived() }
        var at = 0
        while let (start, header) = OggPage.next(in: pending, from: at) {
            if start > at { at = start }  // junk before a page: skipped
            guard start + header.length <= pending.count else { break }
            pageReceived(pending[start..<start + header.length], header, at: pendingStart + UInt64(start))
            at = start + header.length
        }
        pending.removeFirst(min(at, pending.count))
        pendingStart += UInt64(at)
        if pending.count > Self.maxPageBytes {  // never a page: junk
            let drop = pending.count - Self.maxPageBytes
            pending.removeFirst(drop)
            pendingStart += UInt64(drop)
        }
    }

    /// Drops the chains wholly before `start` (the ring's oldest offset); the chain playing at
    /// `start` keeps its headers: they are what a seek there needs.
    package mutating func prune(before start: UInt64) {
        guard let covering = chains.lastIndex(where: { $0.start <= start }), covering > 0 else { return }
        for chain in chains[..<covering] { totalBytes -= chain.headers.count }
        chains.removeFirst(covering)
    }

    /// Where playback from `offset` starts: in a chain's headers (or before any chain is known),
    /// at that offset or the chain's start; past them, at `pageStart` — the first page at or after
    /// `offset`, found by the caller in the ring's bytes — with the chain's headers before it.
    package func start(at offset: UInt64, pageStart: (UInt64) -> UInt64?) -> Start {
        guard let index = chains.lastIndex(where: { $0.start <= offset }) else { return Start(offset: offset, prefix: []) }
        let chain = chains[index]
        guard let headersEnd = chain.headersEnd, offset >= headersEnd else { return Start(offset: chain.start, prefix: []) }
        if chain.isFLAC { return Start(offset: offset, prefix: chain.headers) }
        guard !chain.headers.isEmpty, let page = pageStart(offset) else { return Start(offset: offset, prefix: []) }
        if index + 1 < chains.count, page >= chains[index + 1].start { return Start(offset: chains[index + 1].start, prefix: []) }
        return Start(offset: page, prefix: chain.headers)
    }

    // MARK: native FLAC

    /// The stream header so far: "fLaC", then metadata blocks (a byte whose top bit marks the last,
    /// a 24-bit length) — once the last is complete it is the one chain's headers.
    private mutating func flacHeaderReceived() {
        var at = 4
        while at + 4 <= pending.count, at <= Self.maxChainBytes {
            let last = pending[at] & 0x80 != 0
            let length = Int(pending[at + 1]) << 16 | Int(pending[at + 2]) << 8 | Int(pending[at + 3])
            at += 4 + length
            guard last else { continue }
            let fits = at <= Self.maxChainBytes
            if fits, at > pending.count { return }  // the last block is still arriving
            let headers = fits ? Array(pending[..<at]) : []
            chains.append(Chain(start: pendingStart, headersEnd: pendingStart + UInt64(at), headers: headers, serial: 0, tooLarge: !fits, isFLAC: true))
            totalBytes += headers.count
            return stopWatching()
        }
        if at > Self.maxChainBytes { stopWatching() }  // larger than the bound: seeks play as before
    }

    private mutating func stopWatching() {
        watching = Watching.nothing
        pending = []
    }

    // MARK: pages

    private mutating func pageReceived(_ page: ArraySlice<UInt8>, _ header: OggPage, at offset: UInt64) {
        let serial = header.serial
        if header.isBOS {
            // A first page: of a new chain, or of another stream multiplexed into the chain being read.
            if let last = chains.indices.last, chains[last].headersEnd == nil {
                append(page, toChain: last)
            } else {
                chains.append(Chain(start: offset, headersEnd: nil, headers: [], serial: serial))
                append(page, toChain: chains.count - 1)
            }
            return
        }
        guard let last = chains.indices.last, chains[last].headersEnd == nil else { return }
        if header.granule == 0 || header.granule == -1 {
            append(page, toChain: last)
        } else {
            chains[last].headersEnd = offset
        }
    }

    private mutating func append(_ page: ArraySlice<UInt8>, toChain index: Int) {
        guard !chains[index].tooLarge else { return }
        if chains[index].headers.count + page.count > Self.maxChainBytes {
            totalBytes -= chains[index].headers.count
            chains[index].headers = []
            chains[index].tooLarge = true
            return
        }
        chains[index].headers.append(contentsOf: page)
        totalBytes += page.count
        // Over the whole bound: the oldest chains give up their headers (seeks into them play as before).
        var oldest = 0
        while totalBytes > Self.maxTotalBytes, oldest < index {
            totalBytes -= chains[oldest].headers.count
            chains[oldest].headers = []
            oldest += 1
        }
    }
}
