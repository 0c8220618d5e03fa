/// The comment header of Vorbis ("\u{3}vorbis") and Opus ("OpusTags")
/// streams, and FLAC's VORBIS_COMMENT metadata block (a 4-byte block header, as
/// the second packet of FLAC in Ogg): a vendor string and KEY=value pairs
/// (Vorbis I spec §5, RFC 7845 §5.2, RFC 9639 §8.6). Parsed, changed and written
/// back; anything after the comments (Vorbis' framing bit, Opus' padding) is
/// kept as it was.
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

    public init?(packet: [UInt8]) {
        let magic: [UInt8]
        if packet.starts(with: Self.vorbisMagic) {
            codec = .vorbis
            magic = Self.vorbisMagic
        } else if packet.starts(with: Self.opusMagic) {
            codec = .opus
            magic = Self.opusMagic
        } else if packet.count >= 4, packet[0] & 0x7F == 4,
                  Int(packet[1]) << 16 | Int(packet[2]) << 8 | Int(packet[3]) == packet.count - 4 {
            codec = .flac
            flacBlockByte = packet[0]
            magic = Array(packet[0 ..< 4])
        } else {
            return nil
        }
        var at = magic.count
        func le32() -> Int? {
            guard at + 4 <= packet.count else { return nil }
            defer { at += 4 }
            return Int(packet[at]) | Int(packet[at + 1]) << 8 | Int(packet[at + 2]) << 16 | Int(packet[at + 3]) << 24
        }
        guard let vendorLength = le32(), at + vendorLength <= packet.count else { return nil }
        vendor = Array(packet[at ..< at + vendorLength])
        at += vendorLength
        guard let count = le32(), count <= packet.count / 4 else { return nil }
        var comments: [String] = []
        for _ in 0 ..< count {
            guard let length = le32(), at + length <= packet.count else { return nil }
            comments.append(String(decoding: packet[at ..< at + length], as: UTF8.self))
            at += length
        }
        self.comments = comments
        trailer = Array(packet[at...])
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
        func le32(_ value: Int) -> [UInt8] { (0 ..< 4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        var bytes: [UInt8] = le32(vendor.count) + vendor + le32(comments.count)
        for comment in comments {
            let utf8 = Array(comment.utf8)
            bytes += le32(utf8.count) + utf8
        }
        switch codec {
        case .vorbis: return Self.vorbisMagic + bytes + (trailer.isEmpty ? [1] : trailer) // the framing bit
        case .opus: return Self.opusMagic + bytes + trailer
        case .flac:
            let body = bytes + trailer
            return [flacBlockByte, UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
        }
    }
}
