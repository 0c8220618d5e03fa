import OtonEvents

/// What a running pipeline reports, translated from GStreamer bus messages
/// on the GLib thread. The player consumes these on its own queue.
public enum PipelineEvent: Sendable {
    /// The pipeline reached PLAYING: audio flows.
    case started
    /// Tags from a tag event, and when the host read them (CLOCK_MONOTONIC).
    case tags(TagSet, monotonicNanoseconds: Int64)
    /// A BUFFERING message.
    case buffering(percent: Int)
    /// An ERROR message.
    case error(GStreamerErrorReport)
    /// A WARNING message, for the log.
    case warning(String)
    /// A line for the listener's log (warning level), in the listener's language.
    case notice(String)
    /// End of stream: a file ended, or a server closed a live stream.
    case endOfStream
    /// A finite resource (an HTTP body with a Content-Length, received whole) was played to its end:
    /// a programme that ended, not a dropped connection (issue 54 §9).
    case programmeEnded
    /// The light engine knows what went wrong without GStreamer's words (an HTTP status, a curl
    /// error): the kind, and a detail for the log.
    case failure(PlaybackErrorKind, detail: String)
    /// The light engine cannot frame this stream (MP4, a playlist …): the same
    /// connection is to be made again with GStreamer.
    case needsPipeline(reason: String)
    /// The timeshift ring cannot be written (a full disk): the same station is to be played straight
    /// through, without timeshift; the reason for the log.
    case timeshiftUnwritable(reason: String)
}
