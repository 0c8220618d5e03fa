/// The file sink's config keys: one owner for their names, read by ``FileSinkSettings/parse(_:)``
/// and written by `oton record` (which links this module) for the settings its options give.
public enum FileSinkKey: String, CaseIterable, Sendable {
    case directory
    case template
    case split
    case partial
    case minSeconds = "min_seconds"
    case mode
    case bufferMb = "buffer_mb"
    case diskFloorMb = "disk_floor_mb"
    case index
    case station
    case streamUrl = "stream_url"
    case quitOnError = "quit_on_error"
    case maxMb = "max_mb"
    case maxSeconds = "max_seconds"
    case tags
    case format
    case silenceWindow = "silence_window"
    case padBefore = "pad_before"
    case padAfter = "pad_after"
    case cue
    case names
    case wishlist
    /// Archive mode: the period as a duration ("1h"), its name template, its zone ("utc" or "local").
    case archive
    case archiveTemplate = "archive_template"
    case archiveTz = "archive_tz"
    /// false: no per-track files (archive only).
    case tracks
    /// Archive retention: the age (a duration, "30d") and the size in megabytes.
    case keep
    case keepSizeMb = "keep_size_mb"
    /// Below the free-space floor: "stop" recording (the default) or remove the "oldest" finished segment.
    case whenFull = "when_full"
    /// Archive upload: "s3://bucket/prefix", an S3-compatible endpoint's URL, and whether a confirmed upload removes the local copy.
    case upload
    case uploadEndpoint = "upload_endpoint"
    case uploadDelete = "upload_delete"
    /// The air watch (`oton record`): the level sampled, dead air, title stalls and format changes
    /// as alerts; the silence threshold in dBFS, the seconds of silence that are dead air, the
    /// seconds one title may stay.
    case airWatch = "air_watch"
    case silenceThreshold = "silence_threshold"
    case silenceAfter = "silence_after"
    case titleStallAfter = "title_stall_after"
}
