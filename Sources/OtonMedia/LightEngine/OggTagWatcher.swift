import OtonStreamFraming
import PluginAPI

/// Reads the titles of an Ogg stream as the light engine passes its bytes along: Icecast's Ogg
/// mounts carry no ICY metadata; each track is a new logical stream (a chain) whose comment header
/// (Vorbis "\u{3}vorbis", Opus "OpusTags", or FLAC's VORBIS_COMMENT block) names it. The bytes are
/// only looked at, never changed.
///
/// Bounded: a page is at most 65,307 bytes and a comment packet is read up to the header's
/// OTON_OGG_COMMENT_MAX_BYTES, 256 KiB (beyond, its title is not read; the file sink keeps no more).
public struct OggTagWatcher: Sendable {
    public struct Tags: Equatable, Sendable {
        public var title: String?
        public var artist: String?
        public var organization: String?
    }

    package static let maximumCommentPacket = Int(OTON_OGG_COMMENT_MAX_BYTES)
    private var buffer: [UInt8] = []
    private var serial: UInt32?
    /// Packets of the current logical stream completed so far, and the one being assembled.
    private var packetIndex = 0
    private var packet: [UInt8] = []
    private var oversized = false
    private var isFLAC = false

    public init() {}

    /// Where the current chain's first page began, in `buffer`.
    private var chainStart = 0

    /// Feeds bytes; returns the tags of each comment header completed in them.
    public mutating func push(_ bytes: UnsafeRawBufferPointer) -> [Tags] {
        pushLocated(bytes).map(\.tags)
    }

    /// As ``push(_:)``, with where in `bytes` each chain began (its first page; 0 when that was in
    /// bytes fed before): a timeshift ring notes the title there, not after a burst of several songs.
    public mutating func pushLocated(_ bytes: UnsafeRawBufferPointer) -> [(tags: Tags, at: Int)] {
        let carried = buffer.count
        buffer.append(contentsOf: bytes)
        var found: [(tags: Tags, at: Int)] = []
        var at = 0
        while true {
            guard let (start, page) = OggPage.next(in: buffer, from: at) else {
                while at + 27 <= buffer.count, !OggPage.startsWithCapture(buffer, at: at) { at += 1 }  // junk: dropped
                break
            }
            at = start  // junk before a page: skipped
            guard start + page.length <= buffer.count else { break }
            let bodyStart = start + page.headerLength
            let lacing = buffer[(start + 27)..<bodyStart]
            let bodyLength = page.length - page.headerLength
            let pageSerial = page.serial
            if page.isBOS || serial == nil {
                serial = pageSerial
                chainStart = start
                packetIndex = 0
                packet = []
                oversized = false
                isFLAC = false
            }
            if pageSerial == serial, packetIndex < 3 {
                var offset = bodyStart
                for value in lacing {
                    let length = Int(value)
                    if packetIndex < 3 {
                        if packet.count + length <= Self.maximumCommentPacket {
                            packet.append(contentsOf: buffer[offset..<offset + length])
                        } else {
                            oversized = true
                        }
                    }
                    offset += length
                    if value < 255 {
                        if let tags = completed() { found.append((tags, max(0, chainStart - carried))) }
                        packetIndex += 1
                        packet = []
                        oversized = false
                    }
                }
            }
            at = bodyStart + bodyLength
        }
        let dropped = min(at, buffer.count)
        buffer.removeFirst(dropped)
        chainStart -= dropped
        if buffer.count > 70_000 {  // never a page: junk
            chainStart -= buffer.count - 70_000
            buffer.removeFirst(buffer.count - 70_000)
        }
        return found
    }

    /// A packet of the current stream is complete: the first says the codec, a comment header its tags.
    private mutating func completed() -> Tags? {
        if packetIndex == 0 {
            isFLAC = OggCodec(identification: packet[...]) == .flac
            return nil
        }
        guard !oversized, let (codec, fields) = VorbisComments.fields(ofPacket: packet[...]), (codec == .flac) == isFLAC else { return nil }
        var tags = Tags()
        for field in fields {
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: field[field.startIndex..<equals], as: UTF8.self).uppercased()
            let value = TitleByteDecoder.decode(Array(field[(equals + 1)...])).text
            switch key {
            case "TITLE": tags.title = tags.title ?? value
            case "ARTIST": tags.artist = tags.artist ?? value
            case "ORGANIZATION": tags.organization = tags.organization ?? value
            default: break
            }
        }
        return tags
    }
}
