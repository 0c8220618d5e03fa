/// The comment header of Vorbis ("\u{3}vorbis") and Opus ("OpusTags")
/// streams: a vendor string and KEY=value pairs (Vorbis I spec §5, RFC 7845
/// §5.2). Parsed, changed and written back; anything after the comments
/// (Vorbis' framing bit, Opus' padding) is kept as it was.
public struct VorbisComments: Equatable, Sendable {
    public enum Codec: Equatable, Sendable { case vorbis, opus }

    public var codec: Codec
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
        var bytes = codec == .vorbis ? Self.vorbisMagic : Self.opusMagic
        bytes += le32(vendor.count) + vendor + le32(comments.count)
        for comment in comments {
            let utf8 = Array(comment.utf8)
            bytes += le32(utf8.count) + utf8
        }
        if codec == .vorbis && trailer.isEmpty { return bytes + [1] } // the framing bit
        return bytes + trailer
    }
}
