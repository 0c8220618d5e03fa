/// The comment header of Vorbis ("\u{3}vorbis") and Opus ("OpusTags")
/// streams, and FLAC's VORBIS_COMMENT metadata block (a 4-byte block header, as
/// the second packet of FLAC in Ogg): a vendor string and KEY=value pairs
/// (Vorbis I spec §5, RFC 7845 §5.2, RFC 9639 §8.6). The one reader of that layout, for
/// both of its users: the file sink parses, changes and writes it back (anything after the
/// comments, Vorbis' framing bit or Opus' padding, kept as it was); the light engine's
/// ``fields(ofPacket:)`` reads titles from it as a stream passes.
public struct VorbisComments: Equatable, Sendable {
    public enum Codec: Equatable, Sendable { case vorbis, opus, flac }

    public var codec: Codec
    /// FLAC: the block header's first byte (its last-block flag and type 4).
    private var flacBlockByte: UInt8 = 4
    public var vendor: [UInt8]
    public var comments: [String]
    public var trailer: [UInt8]

    private static let vorbisMagic: [UInt8] = [3] + Array("vorbis".utf8)
    private static let opusMagic: [UInt8] = Array("OpusTags".utf8)

    /// Strict, for rewriting: nil for a packet that is not a comment header or whose list runs past
    /// its end (writing such a list back would drop the comments it cut).
    public init?(packet: [UInt8]) {
        guard let read = Self.read(packet[...], lenient: false) else { return nil }
        codec = read.codec
        if read.codec == .flac { flacBlockByte = packet[packet.startIndex] }
        vendor = Array(read.vendor)
        comments = read.fields.map { String(decoding: $0, as: UTF8.self) }
        trailer = Array(packet[read.end...])
    }

    /// Lenient, for reading a stream's titles: the comments ("KEY=value", as bytes: a stream's
    /// encoding is for the caller to judge) up to the first that runs past the packet's end, as a
    /// truncated list still names its track. nil when `packet` is no comment header, or its vendor
    /// or count cannot be.
    public static func fields(ofPacket packet: ArraySlice<UInt8>) -> (codec: Codec, fields: [ArraySlice<UInt8>])? {
        read(packet, lenient: true).map { ($0.codec, $0.fields) }
    }

    private struct Read {
        var codec: Codec
        var vendor: ArraySlice<UInt8>
        var fields: [ArraySlice<UInt8>]
        /// Where the list ended: what follows is the trailer.
        var end: Int
    }

    private static func read(_ packet: ArraySlice<UInt8>, lenient: Bool) -> Read? {
        let codec: Codec
        let magicLength: Int
        let start = packet.startIndex
        if packet.starts(with: vorbisMagic) {
            (codec, magicLength) = (.vorbis, vorbisMagic.count)
        } else if packet.starts(with: opusMagic) {
            (codec, magicLength) = (.opus, opusMagic.count)
        } else if packet.count >= 4, packet[start] & 0x7F == 4,
            Int(packet[start + 1]) << 16 | Int(packet[start + 2]) << 8 | Int(packet[start + 3]) == packet.count - 4
        {
            (codec, magicLength) = (.flac, 4)
        } else {
            return nil
        }
        var at = start + magicLength
        func le32() -> Int? {
            guard at + 4 <= packet.endIndex else { return nil }
            defer { at += 4 }
            return Int(packet[at]) | Int(packet[at + 1]) << 8 | Int(packet[at + 2]) << 16 | Int(packet[at + 3]) << 24
        }
        guard let vendorLength = le32(), vendorLength <= packet.endIndex - at else { return nil }
        let vendor = packet[at..<at + vendorLength]
        at += vendorLength
        // Each comment takes at least its 4-byte length: a larger count is a lie, not a long list.
        guard let count = le32(), count <= packet.count / 4 else { return nil }
        var fields: [ArraySlice<UInt8>] = []
        for _ in 0..<count {
            guard let length = le32(), length <= packet.endIndex - at else {
                if lenient { break }
                return nil
            }
            fields.append(packet[at..<at + length])
            at += length
        }
        return Read(codec: codec, vendor: vendor, fields: fields, end: min(at, packet.endIndex))
    }

    /// Sets KEY (case-insensitive, replacing every earlier value) when `value` is given and not empty.
    public mutating func set(_ key: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        let prefix = key.uppercased() + "="
        comments.removeAll { $0.uppercased().hasPrefix(prefix) }
        comments.append(prefix + value)
    }

    public func value(_ key: String) -> String? {
        let prefix = key.uppercased() + "="
        return comments.first { $0.uppercased().hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    public var packet: [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        var bytes: [UInt8] = le32(vendor.count) + vendor + le32(comments.count)
        for comment in comments {
            let utf8 = Array(comment.utf8)
            bytes += le32(utf8.count) + utf8
        }
        switch codec {
        case .vorbis: return Self.vorbisMagic + bytes + (trailer.isEmpty ? [1] : trailer)  // the framing bit
        case .opus: return Self.opusMagic + bytes + trailer
        case .flac:
            let body = bytes + trailer
            return [flacBlockByte, UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
        }
    }
}
