/// Builds an ID3v2.4 tag (id3.org id3v2.4.0-structure and -frames): a
/// 10-byte header with a syncsafe size, then frames with syncsafe sizes.
/// Text is UTF-8 (encoding byte 3). No unsynchronisation, no padding.
public struct ID3v2Tag: Equatable, Sendable {
    public struct Picture: Equatable, Sendable {
        public var mimeType: String
        public var data: [UInt8]

        public init(mimeType: String, data: [UInt8]) {
            self.mimeType = mimeType
            self.data = data
        }
    }

    public var title: String?
    public var artist: String?
    public var album: String?
    public var comment: String?
    public var picture: Picture?
    /// TXXX frames (user-defined text: a description, then the value), in order.
    public var userTexts: [UserText] = []

    public struct UserText: Equatable, Sendable {
        public var description: String
        public var value: String

        public init(_ description: String, _ value: String) {
            self.description = description
            self.value = value
        }
    }

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, comment: String? = nil, picture: Picture? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
        self.comment = comment
        self.picture = picture
    }

    /// The largest size a syncsafe 28-bit integer holds.
    public static let maxSize = (1 << 28) - 1

    public func bytes() -> [UInt8] {
        var frames: [UInt8] = []
        if let title { frames += Self.frame("TIT2", [3] + Array(title.utf8)) }
        if let artist { frames += Self.frame("TPE1", [3] + Array(artist.utf8)) }
        if let album { frames += Self.frame("TALB", [3] + Array(album.utf8)) }
        if let comment {
            // encoding, language, empty short description (terminated), text
            frames += Self.frame("COMM", [3] + Array("eng".utf8) + [0] + Array(comment.utf8))
        }
        for text in userTexts {
            // encoding, description (terminated), value (id3v2.4.0-frames §4.2.6)
            frames += Self.frame("TXXX", [3] + Array(text.description.utf8) + [0] + Array(text.value.utf8))
        }
        if let picture, frames.count + picture.data.count + 64 < Self.maxSize {
            // encoding, MIME type (Latin-1, terminated), picture type 3 = front cover, empty description, data
            frames += Self.frame("APIC", [3] + Array(picture.mimeType.utf8) + [0, 3, 0] + picture.data)
        }
        return Array("ID3".utf8) + [4, 0, 0] + Self.syncsafe(frames.count) + frames
    }

    static func frame(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + syncsafe(body.count) + [0, 0] + body
    }

    /// 28 bits in four bytes of seven bits each, most significant first.
    public static func syncsafe(_ value: Int) -> [UInt8] {
        [UInt8((value >> 21) & 0x7F), UInt8((value >> 14) & 0x7F), UInt8((value >> 7) & 0x7F), UInt8(value & 0x7F)]
    }

    /// The MIME type of a JPEG or PNG image by its magic bytes, else nil (anything else is not embedded).
    public static func imageType(_ data: [UInt8]) -> String? {
        if data.count > 3, data[0] == 0xFF, data[1] == 0xD8, data[2] == 0xFF { return "image/jpeg" }
        if data.count > 8, data.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return "image/png" }
        return nil
    }
}
