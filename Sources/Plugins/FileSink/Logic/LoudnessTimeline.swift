/// How loud the decoded audio was, in 10 ms blocks on the stream's own time
/// axis (the PCM tap's timestamps, which start at 0 with each connection
/// like the stream tap's frames). Lets a recording of the encoded stream
/// find the quietest moment near a title change without decoding anything
/// itself: the host decodes anyway when the PCM tap is selected. A class:
/// the recorder fills it and the splitter reads it, on the same thread.
public final class LoudnessTimeline {
    private var connection: UInt64 = 0
    /// (start ns, end ns, mean square) per block, in time order.
    private var blocks: [(start: Int64, end: Int64, level: Double)] = []
    /// How much audio to keep, counted back from the newest block.
    public var keep: Int64

    public init(keep: Int64 = 60_000_000_000) {
        self.keep = keep
    }

    /// A PCM buffer: S16LE in `format`, first sample at `pts` (ns) of `connection`.
    public func add(_ bytes: [UInt8], format: PCMFormat, pts: Int64, connection: UInt64) {
        guard pts >= 0, format.bytesPerFrame > 0 else { return }
        if connection != self.connection {
            self.connection = connection
            blocks = []
        }
        let blockBytes = max(format.rate / 100, 1) * format.bytesPerFrame
        var offset = 0
        var start = pts
        while offset < bytes.count {
            let count = min(blockBytes, bytes.count - offset) / format.bytesPerFrame * format.bytesPerFrame
            guard count > 0 else { break }
            let end = start + Int64(count / format.bytesPerFrame) * 1_000_000_000 / Int64(format.rate)
            blocks.append((start, end, PCMFramer.meanSquare(Array(bytes[offset..<offset + count]))))
            offset += count
            start = end
        }
        if let newest = blocks.last?.end, let cut = blocks.firstIndex(where: { $0.end >= newest - keep }), cut > 256 {
            blocks.removeFirst(cut)
        }
    }

    /// Up to where (ns) the audio of `connection` is known.
    public func covered(connection: UInt64) -> Int64 {
        connection == self.connection ? blocks.last?.end ?? 0 : 0
    }

    /// The mean square over [from, to) of `connection`, or nil when part of it is not known.
    public func level(connection: UInt64, from: Int64, to: Int64) -> Double? {
        guard connection == self.connection, to > from, let first = blocks.first, first.start <= from + 1_000_000,
            let last = blocks.last, last.end >= to
        else { return nil }
        var low = 0
        var high = blocks.count
        while low < high {  // the first block that ends after `from`
            let middle = (low + high) / 2
            if blocks[middle].end <= from { low = middle + 1 } else { high = middle }
        }
        var sum = 0.0
        var weight: Int64 = 0
        var index = low
        while index < blocks.count && blocks[index].start < to {
            let overlap = min(blocks[index].end, to) - max(blocks[index].start, from)
            if overlap > 0 {
                sum += blocks[index].level * Double(overlap)
                weight += overlap
            }
            index += 1
        }
        return weight > 0 ? sum / Double(weight) : nil
    }
}
