/// Cuts SHOUTcast/Icecast in-band metadata out of an HTTP body.
///
/// With `icy-metaint: N` the server sends N audio bytes, one length byte L, then 16·L bytes of
/// metadata (`StreamTitle='…';`), and again. Fed the body in arbitrary pieces, the demuxer hands
/// back the audio as slices of the piece it was given (no copy) and each complete metadata block.
/// Memory is bounded by the format itself: a block is at most 255·16 = 4080 bytes.
public struct IcyDemuxer: Sendable {
    public enum Output: Equatable, Sendable {
        /// Audio bytes: a range of the piece passed to ``push(_:_:)``.
        case audio(Range<Int>)
        /// One metadata block, trailing NULs included (empty blocks, L = 0, are not reported).
        case metadata([UInt8])
    }

    /// Bytes of audio between two metadata blocks; nil: the body carries no metadata.
    public let interval: Int?
    private var audioLeft: Int
    private var metadataLeft = 0
    private var readingLength = false
    private var block: [UInt8] = []

    /// The largest interval taken; servers use 8192 or 16000. A larger one (up to 2^31 − 1) only
    /// means metadata comes rarely, so it is accepted as it is.
    public static let maximumInterval = Int(Int32.max)

    public init(interval: Int?) {
        self.interval = interval.flatMap { (1...Self.maximumInterval).contains($0) ? $0 : nil }
        audioLeft = self.interval ?? 0
    }

    /// Reads `count` bytes at `base` and calls `emit` for each piece of audio and each block, in order.
    public mutating func push(_ base: UnsafeRawBufferPointer, _ emit: (Output) -> Void) {
        guard let interval else {
            if base.count > 0 { emit(.audio(0..<base.count)) }
            return
        }
        var index = 0
        let count = base.count
        while index < count {
            if readingLength {
                readingLength = false
                metadataLeft = Int(base[index]) * 16
                index += 1
                if metadataLeft == 0 { audioLeft = interval }
                continue
            }
            if metadataLeft > 0 {
                let take = min(metadataLeft, count - index)
                block.append(contentsOf: base[index..<index + take])
                metadataLeft -= take
                index += take
                if metadataLeft == 0 {
                    emit(.metadata(block))
                    block.removeAll(keepingCapacity: false)
                    audioLeft = interval
                }
                continue
            }
            let take = min(audioLeft, count - index)
            if take > 0 { emit(.audio(index..<index + take)) }
            audioLeft -= take
            index += take
            if audioLeft == 0 { readingLength = true }
        }
    }
}
