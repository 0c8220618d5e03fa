import OtonStreamFraming
import PluginAPI

/// Keeps each Ogg logical stream's comment header within the header's OTON_OGG_COMMENT_MAX_BYTES
/// (256 KiB, the bound the host reads titles within), before anything of the file sink holds it.
/// A larger comment header (issue 39, N5: 20 MB comments cost the file sink 400–600 MB, held as the
/// codec headers every file repeats, then parsed and rebuilt when the file is tagged) is replaced by
/// an empty one of the same codec: its pages are dropped as they come, the header packets after it
/// (Vorbis' setup, FLAC's other blocks) are laid out again behind the empty comment, and the
/// stream's later pages are numbered on from there. The file's tags are written anew when it is
/// finished, so nothing a listener sees is lost.
///
/// Counts header packets (Vorbis 3, Opus 2, FLAC 1 + the blocks its mapping packet counts), so a
/// header page on which no packet ends (granule -1, as libogg writes it) is still a header page. Bounded: a comment's pages are held up to the
/// bound while its length is not known yet, the packets after a replaced one up to `maximumHeld`.
public struct OggHeaderBound {
    public static let maximumComment = Int(OTON_OGG_COMMENT_MAX_BYTES)
    /// Header packets after a replaced comment, held until the last one ends; beyond, they are dropped (a
    /// real Vorbis setup header is a few KB).
    static let maximumHeld = 4 << 20
    /// Logical streams followed at once (a chained stream has one at a time, a multiplexed one a few).
    static let maximumStreams = 16

    /// A page to pass on: `isHeader` is nil when this bound does not know (an unknown codec);
    /// `sourceLength` is how many bytes of the stream it stands for (more than its own for a replacement).
    public struct Passed {
        public var bytes: [UInt8]
        public var page: OggPage
        public var isHeader: Bool?
        public var sourceLength: Int
    }

    private enum Codec { case vorbis, opus, flac }

    private struct Stream {
        var codec: Codec
        /// Header packets in all, and how many have ended.
        var needed: Int
        var ended = 0
        /// Bytes of the packet in progress.
        var packetBytes = 0
        /// Pages of the comment packet held until it is known to fit (with their stream bytes).
        var pending: [(bytes: [UInt8], page: OggPage)] = []
        var pendingBytes = 0
        /// The comment is too large: header pages are swallowed from `firstSequence` on.
        var replacing = false
        var firstSequence: UInt32 = 0
        var commentFirstByte: UInt8 = 4
        var held: [[UInt8]] = []
        var heldBytes = 0
        var partial: [UInt8] = []
        /// Added to the sequence number of every later page.
        var shift: Int64 = 0
    }

    private var streams: [UInt32: Stream] = [:]
    /// Bytes of the stream swallowed and not yet accounted to a page passed on.
    private var debt = 0
    /// Comment headers replaced so far (for the recorder's log).
    public private(set) var replacedComments = 0

    public init() {}

    public mutating func pass(_ bytes: [UInt8], _ page: OggPage) -> [Passed] {
        if page.isBOS {
            if streams.count >= Self.maximumStreams { streams.removeAll() }
            if let stream = Self.stream(identification: Array(bytes[page.headerLength...])) {
                streams[page.serial] = stream
            } else {
                streams[page.serial] = nil
            }
        }
        guard var stream = streams[page.serial] else { return [paid(bytes, page, isHeader: nil)] }
        defer { streams[page.serial] = page.isEOS ? nil : stream }
        if stream.ended >= stream.needed {
            guard stream.shift != 0 else { return [paid(bytes, page, isHeader: nil)] }
            let renumbered = OggPageWriter.rewritten(bytes, sequence: UInt32(truncatingIfNeeded: Int64(page.sequence) + stream.shift))
            return [paid(renumbered, OggPage(renumbered, at: 0) ?? page, isHeader: nil)]
        }
        var offset = page.headerLength
        var output: [Passed] = []
        var holdsHeader = false
        for index in 0..<Int(bytes[26]) {
            let length = Int(bytes[27 + index])
            defer { offset += length }
            if stream.codec == .vorbis && stream.ended == 2 && stream.packetBytes == 0 && length > 0 && bytes[offset] != 5 {
                stream.needed = 2  // no setup header where it belongs: audio (or not Vorbis as the spec has it)
            }
            guard stream.ended < stream.needed else { continue }
            holdsHeader = true  // audio on a header page: not the layout any encoder writes
            if stream.ended == 1 {
                if stream.packetBytes == 0 && length > 0 { stream.commentFirstByte = bytes[offset] }
                stream.packetBytes += length
                if !stream.replacing && stream.packetBytes > Self.maximumComment {
                    stream.replacing = true
                    stream.firstSequence = stream.pending.first?.page.sequence ?? page.sequence
                    debt += stream.pendingBytes
                    stream.pending = []
                    stream.pendingBytes = 0
                }
            } else {
                stream.packetBytes += length
                if stream.replacing {
                    if stream.heldBytes + length <= Self.maximumHeld {
                        stream.partial += bytes[offset..<offset + length]
                    }
                    stream.heldBytes += length
                }
            }
            if length < 255 {
                if stream.replacing && stream.ended >= 2 {
                    stream.held.append(stream.partial)
                    stream.partial = []
                }
                stream.ended += 1
                stream.packetBytes = 0
            }
        }
        if stream.replacing {
            debt += bytes.count
            guard stream.ended >= stream.needed else { return [] }
            // The headers are complete: an empty comment and the packets after it, on pages of their own.
            let packets = stream.heldBytes <= Self.maximumHeld ? [Self.emptyComment(stream)] + stream.held : [Self.emptyComment(stream)]
            let pages = OggPageWriter.paginate(packets, serial: page.serial, sequence: stream.firstSequence, granule: 0)
            stream.shift = Int64(stream.firstSequence) + Int64(pages.count) - Int64(page.sequence) - 1
            stream.held = []
            stream.replacing = false
            replacedComments += 1
            for bytes in pages {
                guard let page = OggPage(bytes, at: 0) else { continue }
                // New bytes: they stand for what was swallowed, not for themselves.
                output.append(Passed(bytes: bytes, page: page, isHeader: true, sourceLength: debt))
                debt = 0
            }
            return output
        }
        if stream.ended == 1 && (stream.packetBytes > 0 || !stream.pending.isEmpty) {
            // The comment has begun and not ended yet: hold its pages until it is known to fit.
            stream.pending.append((bytes, page))
            stream.pendingBytes += bytes.count
            return []
        }
        // The comment (if it was on the way) ended within the bound: what was held goes on as it was.
        output = stream.pending.map { paid($0.bytes, $0.page, isHeader: Self.headerByPackets($0.page)) }
        stream.pending = []
        stream.pendingBytes = 0
        output.append(paid(bytes, page, isHeader: holdsHeader ? Self.headerByPackets(page) : nil))
        return output
    }

    /// A page inside the header packets on which none ends (granule -1) is a header page all the same;
    /// for the others the framer's own rule (granule 0 before the first audio page) decides.
    private static func headerByPackets(_ page: OggPage) -> Bool? {
        page.granule == -1 ? true : nil
    }

    /// Gives the page the stream bytes swallowed before it.
    private mutating func paid(_ bytes: [UInt8], _ page: OggPage, isHeader: Bool?) -> Passed {
        defer { debt = 0 }
        return Passed(bytes: bytes, page: page, isHeader: isHeader, sourceLength: bytes.count + debt)
    }

    /// The header packets a logical stream begins with, from its first packet; nil for another codec.
    private static func stream(identification body: [UInt8]) -> Stream? {
        if body.starts(with: [1] + Array("vorbis".utf8)) { return Stream(codec: .vorbis, needed: 3) }
        if body.starts(with: Array("OpusHead".utf8)) { return Stream(codec: .opus, needed: 2) }
        if body.count >= 9, body.starts(with: [0x7F] + Array("FLAC".utf8)) {
            let blocks = Int(body[7]) << 8 | Int(body[8])
            return blocks > 0 ? Stream(codec: .flac, needed: 1 + blocks) : nil
        }
        return nil
    }

    /// A comment header with no vendor and no comments.
    private static func emptyComment(_ stream: Stream) -> [UInt8] {
        let empty: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]  // vendor length, comment count
        switch stream.codec {
        case .vorbis: return [3] + Array("vorbis".utf8) + empty + [1]  // the framing bit
        case .opus: return Array("OpusTags".utf8) + empty
        case .flac: return [stream.commentFirstByte & 0x80 | 4, 0, 0, UInt8(empty.count)] + empty  // last-block flag kept
        }
    }
}
