import OtonStreamFraming

/// Rewrites a recorded native FLAC file (`fLaC`, its metadata blocks, its frames) so that it carries
/// its track's tags the way an Ogg file gets them (``OggTagRewriter``): the VORBIS_COMMENT block the
/// stream sent gets TITLE, ARTIST, ALBUM and COMMENT (one is added after STREAMINFO when there was
/// none); the other blocks and the frames pass unchanged. A file whose head is not a FLAC header
/// (a stream joined in its middle), or whose header is larger than ``FLACFramer``'s bound, passes
/// unchanged.
public struct FLACTagRewriter {
    private let tags: TrackTags
    private var pending: [UInt8] = []
    private var done = false

    public init(tags: TrackTags) {
        self.tags = tags
    }

    /// Bytes of the recorded file, in order, in any pieces; returns the bytes of the new file so far.
    public mutating func push(_ bytes: [UInt8]) -> [UInt8] {
        if done { return bytes }
        pending += bytes
        guard let output = rewrite() else { return [] }
        done = true
        pending = []
        return output
    }

    /// The end of the file: whatever is held goes out unchanged.
    public mutating func finish() -> [UInt8] {
        defer { pending = []; done = true }
        return pending
    }

    /// The rewritten head and everything after it once the metadata blocks are whole; nil while they
    /// are still arriving. A head that is not FLAC comes back as it is.
    private mutating func rewrite() -> [UInt8]? {
        guard pending.count >= 4 else { return nil }
        guard pending[0..<4].elementsEqual("fLaC".utf8) else { return pending }
        var at = 4
        var blocks: [[UInt8]] = []
        while true {
            guard pending.count >= at + 4 else { return nil }
            let length = Int(pending[at + 1]) << 16 | Int(pending[at + 2]) << 8 | Int(pending[at + 3])
            guard at + 4 + length <= FLACFramer.maximumHeaderBytes else { return pending }
            guard pending.count >= at + 4 + length else { return nil }
            blocks.append(Array(pending[at..<at + 4 + length]))
            let last = pending[at] & 0x80 != 0
            at += 4 + length
            if last { break }
        }
        guard let first = blocks.first, first[0] & 0x7F == 0 else { return pending }  // STREAMINFO comes first
        var comments =
            blocks.lazy.compactMap { $0[0] & 0x7F == 4 ? VorbisComments(packet: $0) : nil }.first
            ?? VorbisComments(packet: [4, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0])!  // no vendor, no comments
        comments.set("TITLE", tags.title)
        comments.set("ARTIST", tags.artist)
        comments.set("ALBUM", tags.album)
        comments.set("COMMENT", tags.comment)
        comments.set(TrackTags.titleSourceKey, tags.titleSource)
        var kept = blocks.filter { $0[0] & 0x7F != 4 }
        let block = comments.packet
        guard block.count - 4 < 1 << 24 else { return pending }
        kept.insert(block, at: 1)
        var output = Array("fLaC".utf8)
        for (index, block) in kept.enumerated() {
            var block = block
            block[0] = block[0] & 0x7F | (index == kept.count - 1 ? 0x80 : 0)
            output += block
        }
        return output + pending[at...]
    }
}
