import OtonSupport
import Synchronization

/// What has flowed through one pipeline: bumped by pad probes on GStreamer's
/// streaming threads, read by the player (any thread; relaxed atomics).
/// The player's watchdog uses `outputBuffers` to tell "playing" from "stalled",
/// and `sourceBytes` to tell a server that sent nothing from one that sent junk.
public final class PipelineFlow: Sendable {
    private let source = Atomic<UInt64>(0)
    private let output = Atomic<UInt64>(0)
    private let lastSource = Atomic<Int64>(0)

    public init() {}

    /// Bytes that left the source element (HTTP body or file), ICY metadata included.
    public var sourceBytes: UInt64 { source.load(ordering: .relaxed) }
    /// Buffers that reached the output: the audio sink, or for a parse-only pipeline the parser's output.
    public var outputBuffers: UInt64 { output.load(ordering: .relaxed) }

    /// When bytes last left the source (CLOCK_MONOTONIC ns; 0: never).
    public var lastSourceBytesAt: Int64 { lastSource.load(ordering: .relaxed) }

    package func addSourceBytes(_ count: Int) {
        source.add(UInt64(max(0, count)), ordering: .relaxed)
        lastSource.store(Clock.monotonicNanoseconds(), ordering: .relaxed)
    }
    package func addOutputBuffer() { output.add(1, ordering: .relaxed) }
}
